"""Erasure with the real stores: after it, the content is found nowhere (graph nodes and
relationships, vector points and keyword search, history, summaries, entities, recall), the
tombstone holds only ids, times, actor and hash, the audit log records it, and other users and
scopes cannot erase what they cannot see."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.enrichment.tasks import enrich_memories
from app.memories.tasks import embed_memories
from app.models import to_iso, utc_now
from app.scope import Scope
from app.storage.graph.sessions import link_derived
from app.storage.vectors import VectorFilter
from tests.conftest import (
    ADMIN_KEY,
    AGENT_KEY,
    ALICE_KEY,
    BOB_KEY,
    auth,
    running_client,
    test_settings,
)

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)
SECRET = "Quentin Marlowe hid the zanzibarite ledger in Reykjavik"
SECRET_WORDS = ("quentin", "marlowe", "zanzibarite", "reykjavik", "ledger")
TOMBSTONE_FIELDS = {
    "memory_id",
    "user_id",
    "agent_id",
    "agent_lineage",
    "content_hash",
    "deleted_at",
    "actor",
    "version",
    "erased_at",
    "erased_by",
}


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as client:
        yield client


async def store(client: httpx.AsyncClient, content: str, headers=ALICE, **fields: Any) -> str:
    response = await client.post("/memory", json={"content": content, **fields}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


async def secret_memory(client: httpx.AsyncClient) -> tuple[str, str]:
    """The secret as a memory with a revision, a vector, entities and a derived summary."""
    runtime = client.app.state.runtime
    memory_id = await store(client, "Quentin Marlowe lost the zanzibarite key.", tags=["case"])
    patched = await client.patch(f"/memory/{memory_id}", json={"content": SECRET}, headers=ALICE)
    assert patched.status_code == 200, patched.text
    summary = await store(client, "Summary: Marlowe and the zanzibarite ledger.")
    await link_derived(
        runtime.stores.graph,
        "alice",
        [{"consolidated": summary, "raw": memory_id, "transformation": "summary"}],
        now=to_iso(utc_now()),
    )
    await embed_memories(runtime, "alice", [memory_id, summary])
    assert await enrich_memories(runtime, "alice", [memory_id]) == 1
    return memory_id, summary


async def everything_in_graph(client: httpx.AsyncClient) -> str:
    graph = client.app.state.stores.graph
    nodes = await graph.ro_query("MATCH (n) RETURN labels(n), properties(n)")
    edges = await graph.ro_query("MATCH ()-[r]->() RETURN type(r), properties(r)")
    return repr(nodes + edges).lower()


async def everything_in_vectors(client: httpx.AsyncClient) -> str:
    vectors = client.app.state.stores.vectors
    payloads = []
    async for ids in vectors.iter_ids(256):
        payloads += [r.payload for r in (await vectors.retrieve(ids)).values()]
    return repr(payloads).lower()


async def assert_secret_gone(client: httpx.AsyncClient, *ids: str) -> None:
    graph_text, vector_text = await everything_in_graph(client), await everything_in_vectors(client)
    for word in SECRET_WORDS:
        assert word not in graph_text, word
        assert word not in vector_text, word
    vectors = client.app.state.stores.vectors
    assert await vectors.retrieve(list(ids)) == {}
    for word in SECRET_WORDS:
        hits = await vectors.search_sparse(word, VectorFilter(Scope("alice")), 10)
        assert hits == [], word
    recalled = await client.get("/recall", params={"query": SECRET}, headers=ALICE)
    assert not {r["id"] for r in recalled.json()["results"]} & set(ids)
    entities = (await client.get("/entities", headers=ALICE)).json()
    assert "marlowe" not in repr(entities).lower()


async def test_a_user_erases_a_memory_everywhere(client: httpx.AsyncClient) -> None:
    memory_id, summary = await secret_memory(client)
    kept = await store(client, "Alice likes plain green tea.")
    assert "zanzibarite" in await everything_in_graph(client)  # the check can see it

    response = await client.delete(f"/memory/{memory_id}", params={"erase": "true"}, headers=ALICE)
    assert response.status_code == 200, response.text
    assert set(response.json()["erased_ids"]) == {memory_id, summary}

    await assert_secret_gone(client, memory_id, summary)
    history = (await client.get(f"/memory/{memory_id}/history", headers=ALICE)).json()
    assert history["deleted"] and history["current"] is None and history["revisions"] == []
    assert set(history["tombstone"]) <= TOMBSTONE_FIELDS
    assert [e["action"] for e in history["events"]][-1] == "erase"
    assert (await client.get(f"/memory/{memory_id}", headers=ALICE)).status_code == 404
    assert (await client.get(f"/memory/{kept}", headers=ALICE)).status_code == 200


async def test_a_deleted_memory_can_still_be_erased(client: httpx.AsyncClient) -> None:
    memory_id = await store(client, SECRET)
    assert (await client.delete(f"/memory/{memory_id}", headers=ALICE)).status_code == 200
    assert "zanzibarite" in await everything_in_graph(client)  # the final revision holds it
    erased = await client.delete(f"/memory/{memory_id}?erase=true", headers=ALICE)
    assert erased.status_code == 200, erased.text
    await assert_secret_gone(client, memory_id)


async def test_erasure_stays_within_the_callers_scope(client: httpx.AsyncClient) -> None:
    memory_id = await store(client, SECRET)
    helper_note = await store(client, "The helper's own note.", auth(AGENT_KEY, "openwebui"))
    refused = await client.delete(f"/memory/{memory_id}?erase=true", headers=BOB)
    assert refused.status_code == 404
    for headers in (BOB, auth(ALICE_KEY, "another-agent")):
        refused = await client.delete(f"/memory/{helper_note}?erase=true", headers=headers)
        assert refused.status_code == 404
    assert (
        await client.get(f"/memory/{helper_note}", headers=auth(AGENT_KEY, "openwebui"))
    ).status_code == 200
    assert (await client.get(f"/memory/{memory_id}", headers=ALICE)).status_code == 200
    assert (await client.delete("/admin/users/alice", headers=ALICE)).status_code == 403
    assert (await client.delete(f"/admin/memories/{memory_id}", headers=BOB)).status_code == 403


async def test_the_admin_erases_a_whole_user(client: httpx.AsyncClient) -> None:
    memory_id, summary = await secret_memory(client)
    gone = await store(client, "Deleted before, kept in its revision: zanzibarite.")
    await client.delete(f"/memory/{gone}", headers=ALICE)
    bobs = await store(client, "Bob's own memory about sailing.", BOB)
    await client.app.state.runtime.stores.graph.query(
        "MERGE (s:Session {user_id: 'alice', session_id: 'chat-1'}) SET s.turns = 1"
    )

    response = await client.delete("/admin/users/alice", headers=ADMIN)
    assert response.status_code == 200, response.text
    assert set(response.json()["erased"]) >= {memory_id, summary, gone}

    await assert_secret_gone(client, memory_id, summary, gone)
    graph = client.app.state.stores.graph
    leftovers = await graph.ro_query(
        "MATCH (n) WHERE n.user_id = 'alice' AND NOT n:Tombstone AND NOT n:AuditEvent "
        "RETURN labels(n)"
    )
    assert leftovers == []
    events = await graph.ro_query(
        "MATCH (e:AuditEvent {user_id: 'alice', action: 'erase_user'}) RETURN e.actor"
    )
    assert len(events) == 1 and events[0][0].startswith("admin")
    assert (await client.get(f"/memory/{bobs}", headers=BOB)).status_code == 200
    again = await client.delete("/admin/users/alice", headers=ADMIN)
    assert again.status_code == 200  # idempotent


async def test_the_admin_erases_one_memory_of_any_user(client: httpx.AsyncClient) -> None:
    memory_id = await store(client, SECRET)
    response = await client.delete(f"/admin/memories/{memory_id}", headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.json()["erased"] == [memory_id]
    await assert_secret_gone(client, memory_id)
    missing = await client.delete(
        "/admin/memories/00000000-0000-0000-0000-000000000000", headers=ADMIN
    )
    assert missing.status_code == 404


async def test_erasures_past_the_rate_are_429_and_erase_nothing(
    falkordb_url: str, tmp_path: Path
) -> None:
    """Each erasure rewrites files that hold every user's data: a user gets
    ERASE_RATE_PER_MINUTE of them; the next is refused whole, and other users and the admin
    are not held back."""
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, erase_rate_per_minute=2)
    async with running_client(settings) as client:
        ids = [await store(client, f"Alice's note number {n} about the garden.") for n in range(3)]
        codes = [
            (await client.delete(f"/memory/{i}", params={"erase": "true"}, headers=ALICE))
            for i in ids
        ]
        assert [c.status_code for c in codes] == [200, 200, 429]
        assert 1 <= int(codes[2].headers["Retry-After"]) <= 61
        assert "at most 2 per minute" in codes[2].json()["message"]
        assert (await client.get(f"/memory/{ids[2]}", headers=ALICE)).status_code == 200
        me = await client.delete("/me", params={"erase": "true", "confirm": "alice"}, headers=ALICE)
        assert me.status_code == 429
        assert (await client.get(f"/memory/{ids[2]}", headers=ALICE)).status_code == 200

        bobs = await store(client, "Bob's note about the shed.", headers=BOB)
        erased = await client.delete(f"/memory/{bobs}", params={"erase": "true"}, headers=BOB)
        assert erased.status_code == 200
        by_admin = await client.delete(f"/admin/memories/{ids[2]}", headers=ADMIN)
        assert by_admin.status_code == 200, by_admin.text
