"""Recovery from vectors with the real stores: after the graph is lost, every memory whose
point exists comes back with its content and fields, in its owner's scope; a graph that holds
memories is never replaced; what the points cannot give back is reported."""

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.storage.graph import schema, snapshot
from tests.ops.test_backup import ADMIN, AGENT, ALICE, BOB, make_client, populate, store

COMPARED = (
    "content",
    "user_id",
    "agent_id",
    "type",
    "tags",
    "importance",
    "confidence",
    "timestamp",
    "t_valid",
    "created_at",
    "labels",
    "metadata",
    "layer",
    "summary",
    "version",
    "pinned",
    "archived",
)


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for app_client in make_client(falkordb_url, tmp_path):
        yield app_client


async def memories(client: httpx.AsyncClient, ids: dict[str, list[str]]) -> dict[str, dict]:
    found = {}
    for who, headers in (("alice", ALICE), ("agent", AGENT), ("bob", BOB)):
        for memory_id in ids[who]:
            response = await client.get(f"/memory/{memory_id}", headers=headers)
            assert response.status_code == 200, (who, response.text)
            memory = response.json()["memory"]
            found[memory_id] = {k: memory.get(k) for k in COMPARED}
    return found


async def lose_the_graph(client: httpx.AsyncClient) -> None:
    graph = client.app.state.stores.graph
    await snapshot.delete_everything(graph)
    await schema.migrate(graph)


async def recover(client: httpx.AsyncClient, **params: str) -> httpx.Response:
    return await client.post("/admin/recover-from-vectors", params=params, headers=ADMIN)


async def test_every_memory_with_a_point_comes_back(client: httpx.AsyncClient) -> None:
    ids = await populate(client)
    before = await memories(client, ids)
    await lose_the_graph(client)
    assert (await client.get(f"/memory/{ids['alice'][0]}", headers=ALICE)).status_code == 404

    response = await recover(client)
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["recovered"] == len(before) == report["points"]
    assert report["unrecoverable"] == 0 and "revisions" in report["not_recoverable_from_points"]
    assert await memories(client, ids) == before
    assert (await client.get(f"/memory/{ids['alice'][0]}", headers=BOB)).status_code == 404
    history = (await client.get(f"/memory/{ids['alice'][0]}/history", headers=ALICE)).json()
    assert history["events"][0]["action"] == "recover"


async def test_a_graph_with_memories_is_never_replaced(client: httpx.AsyncClient) -> None:
    kept = await store(client, "Still in the graph.")
    lost = await store(client, "Lost from the graph only.")
    refused = await recover(client)
    assert refused.status_code == 409 and "never replaces" in refused.json()["message"]

    await client.app.state.stores.graph.query(
        "MATCH (m:Memory {id: $id}) DETACH DELETE m", {"id": lost}
    )
    forced = (await recover(client, force="true")).json()
    assert forced["recovered"] == 1 and forced["already_in_graph"] == 1
    for memory_id in (kept, lost):
        assert (await client.get(f"/memory/{memory_id}", headers=ALICE)).status_code == 200


async def test_a_point_without_content_is_reported(client: httpx.AsyncClient) -> None:
    memory_id = await store(client, "A memory whose point predates content in payloads.")
    vectors = client.app.state.stores.vectors
    payload = (await vectors.retrieve([memory_id]))[memory_id].payload
    await vectors.set_payload(memory_id, {k: v for k, v in payload.items() if k != "content"})
    await lose_the_graph(client)
    report = (await recover(client)).json()
    assert report["recovered"] == 0 and report["unrecoverable"] == 1
    assert report["unrecoverable_sample"][0]["id"] == memory_id
    assert "no content" in report["unrecoverable_sample"][0]["reason"]


async def test_recovery_is_admin_only(client: httpx.AsyncClient) -> None:
    assert (await client.post("/admin/recover-from-vectors", headers=ALICE)).status_code == 403
