"""GET /me/export and DELETE /me on real stores: the caller's own memories as a whole, of every
agent, and nothing of another user's; keys bound to an agent are refused."""

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.memories.tasks import embed_memories
from tests.conftest import ADMIN_KEY, AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client
from tests.conftest import test_settings as settings_for

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)
OPENWEBUI = auth(AGENT_KEY)


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with running_client(settings_for(tmp_path, falkordb_url=falkordb_url)) as client:
        yield client


async def store(client: httpx.AsyncClient, headers: dict, content: str) -> str:
    response = await client.post("/memory", json={"content": content}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


async def written(client: httpx.AsyncClient) -> dict[str, str]:
    """Alice's memories (shared, her agent's, a sub-agent's, one with a revision) and Bob's."""
    ids = {
        "shared": await store(client, ALICE, "Alice drinks oolong"),
        "agent": await store(client, OPENWEBUI, "Alice chats in French"),
        "sub": await store(client, auth(AGENT_KEY, "openwebui:kid"), "Kid likes dinosaurs"),
        "bob": await store(client, BOB, "Bob rides a tandem"),
    }
    patched = await client.patch(
        f"/memory/{ids['shared']}", json={"content": "Alice drinks sencha"}, headers=ALICE
    )
    assert patched.status_code == 200, patched.text
    return ids


async def exported(client: httpx.AsyncClient, headers: dict) -> list[dict]:
    response = await client.get("/me/export", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines()]


async def test_export_holds_every_memory_of_the_caller_s_agents_and_none_of_another_user(client):
    ids = await written(client)
    lines = await exported(client, ALICE)
    by_id = {line["memory"]["id"]: line for line in lines}
    assert set(by_id) == {ids["shared"], ids["agent"], ids["sub"]}
    assert {line["format"] for line in lines} == {"engram-export"}
    shared = by_id[ids["shared"]]
    assert shared["memory"]["content"] == "Alice drinks sencha"
    assert [r["content"] for r in shared["revisions"]] == ["Alice drinks oolong"]
    assert [line["memory"]["id"] for line in await exported(client, BOB)] == [ids["bob"]]


async def test_deleting_everything_needs_the_caller_s_user_id_as_confirm(client):
    ids = await written(client)
    for query in ("", "?confirm=", "?confirm=bob", "?confirm=ALICE"):
        refused = await client.delete(f"/me{query}", headers=ALICE)
        assert refused.status_code == 400, refused.text
        assert "confirm=alice" in refused.json()["message"]
    assert (await client.get(f"/memory/{ids['shared']}", headers=ALICE)).status_code == 200
    assert len(await exported(client, ALICE)) == 3


async def test_delete_me_removes_every_memory_of_the_user_and_leaves_bob_s(client):
    ids = await written(client)
    runtime = client.app.state.runtime
    await embed_memories(runtime, "alice", [ids["shared"], ids["agent"], ids["sub"]])
    await embed_memories(runtime, "bob", [ids["bob"]])
    response = await client.delete("/me?confirm=alice", headers=ALICE)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "status": "success",
        "user_id": "alice",
        "erased": False,
        "deleted_count": 3,
        "other_nodes_deleted": 0,
    }
    assert await exported(client, ALICE) == []
    for key in ("shared", "agent", "sub"):
        gone = await client.get(f"/memory/{ids[key]}", headers=auth(AGENT_KEY, "openwebui:kid"))
        assert gone.status_code == 404
    history = await client.get(f"/memory/{ids['shared']}/history", headers=ALICE)
    assert history.json()["deleted"] is True  # a delete, not an erasure: history remains
    vectors = runtime.stores.vectors
    assert set(await vectors.retrieve(list(ids.values()))) == {ids["bob"]}
    assert (await client.get(f"/memory/{ids['bob']}", headers=BOB)).status_code == 200
    assert [line["memory"]["id"] for line in await exported(client, BOB)] == [ids["bob"]]


async def test_delete_me_with_erase_leaves_no_content_and_bob_s_untouched(client):
    ids = await written(client)
    response = await client.delete("/me?confirm=alice&erase=true", headers=ALICE)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["erased"], body["deleted_count"]) == (True, 3)
    graph = client.app.state.stores.graph
    nodes = repr(await graph.ro_query("MATCH (n) RETURN properties(n)")).lower()
    for word in ("oolong", "sencha", "french", "dinosaurs"):
        assert word not in nodes
    assert "tandem" in nodes
    history = (await client.get(f"/memory/{ids['shared']}/history", headers=ALICE)).json()
    assert history["deleted"] and history["current"] is None and history["revisions"] == []
    assert [e["action"] for e in history["events"]][-1] == "erase"
    assert (await client.get(f"/memory/{ids['bob']}", headers=BOB)).status_code == 200


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/me/export"), ("DELETE", "/me?confirm=alice")]
)
async def test_a_key_bound_to_an_agent_or_an_agent_scope_is_refused(client, method, path):
    ids = await written(client)
    for headers, status in ((OPENWEBUI, 403), (auth(ALICE_KEY, "openwebui"), 400), (ADMIN, 403)):
        refused = await client.request(method, path, headers=headers)
        assert refused.status_code == status, (headers, refused.text)
    assert (
        "limited to agent 'openwebui'"
        in (await client.request(method, path, headers=OPENWEBUI)).json()["message"]
    )
    assert len(await exported(client, ALICE)) == 3
    assert (await client.get(f"/memory/{ids['agent']}", headers=OPENWEBUI)).status_code == 200
