"""Duplicates on the plain path: POST /memory with exactly the content of a current memory of the
same owner returns that memory, reinforced, still as AutoMem's 201; another agent or user, a
memory no longer current, a session's turn, `allow_duplicate`, /memory/batch and /remember
store their own."""

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.conftest import AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client
from tests.conftest import test_settings as settings_for
from tests.memories.test_embedding_jobs import FAST_JOBS
from tests.sessions.test_sessions import remember

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
WEBUI, WEBUI_BOB = auth(AGENT_KEY), auth(AGENT_KEY, "openwebui:bob")


@pytest.fixture(scope="module")
async def client(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings_for(
        tmp_path_factory.mktemp("duplicates"),
        falkordb_url=falkordb_url,
        remember_rate_per_minute=1000,
        **FAST_JOBS,
    )
    async with running_client(settings) as client:
        yield client


async def post(
    client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str] = ALICE
) -> dict[str, Any]:
    response = await client.post("/memory", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


async def read(
    client: httpx.AsyncClient, memory_id: str, headers: dict[str, str] = ALICE
) -> dict[str, Any]:
    response = await client.get(f"/memory/{memory_id}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()["memory"]


async def with_content(
    client: httpx.AsyncClient, content: str, headers: dict[str, str] = ALICE
) -> list[str]:
    """Ids of the memories of the scope with this content (every state)."""
    page = await client.get("/memory", params={"limit": 200, "state": "all"}, headers=headers)
    assert page.status_code == 200, page.text
    return [m["id"] for m in page.json()["memories"] if m["content"] == content]


async def graph_query(client: httpx.AsyncClient, cypher: str, params: dict) -> list:
    return await client.app.state.stores.graph.query(cypher, params)  # type: ignore[attr-defined]


async def test_the_same_content_returns_the_memory_reinforced(client: httpx.AsyncClient):
    content = "Alice prefers window seats on trains"
    first = await post(client, {"content": content, "type": "Habit", "ttl_days": 30})
    assert first["deduplicated"] is False
    before = await read(client, first["memory_id"])

    again = await post(client, {"content": content, "tags": ["travel"], "importance": 0.9})
    assert again["memory_id"] == first["memory_id"]
    assert again["deduplicated"] is True and again["status"] == "success"
    assert set(again) == set(first)  # AutoMem's fields, none removed
    assert again["version"] == 1 and again["stored_at"] == first["stored_at"]

    after = await read(client, first["memory_id"])
    assert after["access_count"] == before["access_count"] + 1
    assert after["last_accessed"] > before["last_accessed"]
    assert after["expires_at"] > before["expires_at"]  # the TTL runs from now again
    assert again["last_accessed"] == after["last_accessed"]
    # Nothing else of the request is applied, and nothing new is in the history.
    assert after["tags"] == [] and after["importance"] == 0.5 and after["version"] == 1
    history = (await client.get(f"/memory/{first['memory_id']}/history", headers=ALICE)).json()
    assert [e["action"] for e in history["events"]] == ["create"]
    assert await with_content(client, content) == [first["memory_id"]]


async def test_the_match_is_exact_content(client: httpx.AsyncClient):
    first = await post(client, {"content": "Bob's birthday is in May"})
    other = await post(client, {"content": "bob's birthday is in may"})
    assert other["deduplicated"] is False and other["memory_id"] != first["memory_id"]


async def test_another_agent_or_user_gets_its_own_memory(client: httpx.AsyncClient):
    body = {"content": "The weekly sync is on Tuesdays"}
    shared = await post(client, body, ALICE)
    parent = await post(client, body, WEBUI)
    child = await post(client, body, WEBUI_BOB)
    bob = await post(client, body, BOB)
    ids = {shared["memory_id"], parent["memory_id"], child["memory_id"], bob["memory_id"]}
    assert len(ids) == 4
    assert not any(r["deduplicated"] for r in (shared, parent, child, bob))
    # Each scope's repeat finds its own.
    assert (await post(client, body, WEBUI_BOB))["memory_id"] == child["memory_id"]
    assert (await post(client, body, WEBUI))["memory_id"] == parent["memory_id"]
    assert (await post(client, body, BOB))["memory_id"] == bob["memory_id"]
    assert (await read(client, shared["memory_id"]))["access_count"] == 0


async def test_a_memory_no_longer_current_does_not_absorb_a_new_one(client: httpx.AsyncClient):
    archived = await post(client, {"content": "Works at Initech"})
    patch = {"archived": True}
    response = await client.patch(f"/memory/{archived['memory_id']}", json=patch, headers=ALICE)
    assert response.status_code == 200, response.text
    assert (await post(client, {"content": "Works at Initech"}))["deduplicated"] is False

    ended = {"content": "Lives in Prague", "timestamp": "2020-01-01T00:00:00Z"}
    await post(client, {**ended, "t_invalid": "2021-01-01T00:00:00Z"})
    assert (await post(client, {"content": "Lives in Prague"}))["deduplicated"] is False

    old = await post(client, {"content": "Drives a Fiat"})
    new = await post(client, {"content": "Drives a Volvo"})
    link = {"memory1_id": old["memory_id"], "memory2_id": new["memory_id"]}
    response = await client.post(
        "/associate", json={**link, "type": "INVALIDATED_BY"}, headers=ALICE
    )
    assert response.status_code == 201, response.text
    assert (await post(client, {"content": "Drives a Fiat"}))["deduplicated"] is False

    expired = await post(client, {"content": "Parked on level 3"})
    await graph_query(
        client,
        "MATCH (m:Memory {id: $id}) SET m.expires_at = '2000-01-01T00:00:00.000000+00:00'",
        {"id": expired["memory_id"]},
    )
    assert (await post(client, {"content": "Parked on level 3"}))["deduplicated"] is False

    deleted = await post(client, {"content": "Has a cat named Miso"})
    assert (await client.delete(f"/memory/{deleted['memory_id']}", headers=ALICE)).is_success
    renewed = await post(client, {"content": "Has a cat named Miso"})
    assert renewed["deduplicated"] is False and renewed["previously_deleted"] is True


async def test_allow_duplicate_stores_a_copy(client: httpx.AsyncClient):
    first = await post(client, {"content": "Went for a run"})
    copy = await post(client, {"content": "Went for a run", "allow_duplicate": True})
    assert copy["deduplicated"] is False and copy["memory_id"] != first["memory_id"]
    assert (await read(client, first["memory_id"]))["access_count"] == 0


async def test_session_turns_and_batches_are_stored_as_sent(client: httpx.AsyncClient):
    turn = {"content": "Thanks, that helps!", "source": {"session_id": "chat-1"}}
    turns = [(await post(client, turn))["memory_id"] for _ in range(2)]
    standalone = await post(client, {"content": "Thanks, that helps!"})
    assert len({*turns, standalone["memory_id"]}) == 3 and not standalone["deduplicated"]

    body = {"memories": [{"content": "Likes jazz"}, {"content": "Likes jazz"}]}
    await post(client, {"content": "Likes jazz"})
    response = await client.post("/memory/batch", json=body, headers=ALICE)
    assert response.status_code == 201, response.text
    assert response.json()["stored"] == 2
    assert len(await with_content(client, "Likes jazz")) == 3


async def test_remember_keeps_every_turn_and_no_turn_absorbs(client: httpx.AsyncClient):
    content = "I moved to Lisbon last spring."
    standalone = await post(client, {"content": content})
    said = [
        {"role": "user", "content": content, "message_id": "m1"},
        {"role": "user", "content": content, "message_id": "m2"},
    ]
    await remember(client, "lisbon-chat", said)
    turns = (await client.get("/sessions/lisbon-chat/messages", headers=ALICE)).json()
    assert [m["content"] for m in turns["messages"]] == [content, content]
    again = await post(client, {"content": content})
    assert again["memory_id"] == standalone["memory_id"] and again["deduplicated"] is True


async def test_identical_requests_at_once_store_one_memory(client: httpx.AsyncClient):
    body = {"content": "Allergic to peanuts", "type": "Fact"}
    answers = await asyncio.gather(*(post(client, body) for _ in range(8)))
    assert len({a["memory_id"] for a in answers}) == 1
    assert sum(not a["deduplicated"] for a in answers) == 1
    assert await with_content(client, "Allergic to peanuts") == [answers[0]["memory_id"]]
    assert (await read(client, answers[0]["memory_id"]))["access_count"] == 7


async def test_idempotency_keys_replay_a_deduplicated_answer(client: httpx.AsyncClient):
    body = {"content": "Takes the 8:15 bus"}
    first = await post(client, body)
    key = str(uuid.uuid4())
    keyed = {**ALICE, "Idempotency-Key": key}
    deduplicated = await client.post("/memory", json=body, headers=keyed)
    assert deduplicated.status_code == 201
    assert deduplicated.json()["memory_id"] == first["memory_id"]
    assert deduplicated.json()["deduplicated"] is True
    replay = await client.post("/memory", json=body, headers=keyed)
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.json() == deduplicated.json()

    # The first attempt found and reinforced the memory, then died before answering: the retry
    # answers the same without reinforcing it again.
    await graph_query(
        client,
        "MATCH (k:IdempotencyKey {key: $key}) REMOVE k.response, k.status",
        {"key": key},
    )
    retry = await client.post("/memory", json=body, headers=keyed)
    assert retry.status_code == 201 and retry.headers["idempotent-replayed"] == "true"
    assert retry.json()["memory_id"] == first["memory_id"]
    assert retry.json()["deduplicated"] is True
    assert (await read(client, first["memory_id"]))["access_count"] == 1


async def test_a_new_memory_through_the_lookup_is_complete(client: httpx.AsyncClient):
    """The write that found no duplicate stores the memory as the plain write does: vector,
    audit event, tombstone check, webhook-visible fields."""
    created = await post(client, {"content": "Speaks Portuguese", "embedding": [0.1] * 8})
    assert created["embedding_status"] == "provided" and created["qdrant"] == "stored"
    memory = await read(client, created["memory_id"])
    assert memory["embedding_status"] == "done" and memory["version"] == 1
    assert datetime.fromisoformat(memory["created_at"]) == datetime.fromisoformat(
        created["stored_at"]
    )
    again = await post(client, {"content": "Speaks Portuguese"})
    assert again["deduplicated"] is True and again["embedding_status"] == "provided"
