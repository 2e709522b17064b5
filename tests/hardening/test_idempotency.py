"""Issue row 5: a retry with the same Idempotency-Key never writes twice; another body is a 409;
keys are per user; a first attempt that wrote but never answered is finished by the retry."""

import uuid

import httpx

from tests.conftest import AGENT_KEY, ALICE_KEY, BOB_KEY, auth

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
# The agent-bound key (prefix "openwebui") acting as two sibling agents, and as its own agent.
WEBUI_BOB, WEBUI_CAROL = auth(AGENT_KEY, "openwebui:bob"), auth(AGENT_KEY, "openwebui:carol")
WEBUI = auth(AGENT_KEY)


def keyed(headers: dict[str, str], key: str | None = None) -> dict[str, str]:
    return {**headers, "Idempotency-Key": key or str(uuid.uuid4())}


async def count(client: httpx.AsyncClient, headers: dict[str, str] = ALICE) -> int:
    return (await client.get("/health", headers=headers)).json()["memory_count"]


async def graph_query(client: httpx.AsyncClient, cypher: str, params: dict) -> list:
    return await client.app.state.stores.graph.query(cypher, params)  # type: ignore[attr-defined]


async def test_a_retried_store_returns_the_first_response_and_writes_nothing(
    app_client: httpx.AsyncClient,
):
    before, headers = await count(app_client), keyed(ALICE)
    body = {"content": "Alice moved to Lisbon", "tags": ["move"]}
    first = await app_client.post("/memory", json=body, headers=headers)
    again = await app_client.post("/memory", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert await count(app_client) == before + 1
    # The same content (keys reordered) is the same request.
    reordered = {"tags": ["move"], "content": "Alice moved to Lisbon"}
    third = await app_client.post("/memory", json=reordered, headers=headers)
    assert third.json()["memory_id"] == first.json()["memory_id"]
    assert await count(app_client) == before + 1


async def test_the_same_key_with_another_body_is_409(app_client: httpx.AsyncClient):
    headers = keyed(ALICE)
    assert (await app_client.post("/memory", json={"content": "one"}, headers=headers)).is_success
    before = await count(app_client)
    other = await app_client.post("/memory", json={"content": "two"}, headers=headers)
    assert other.status_code == 409
    assert "Idempotency-Key" in other.json()["message"]
    elsewhere = await app_client.post(
        "/memory/batch", json={"memories": [{"content": "one"}]}, headers=headers
    )
    assert elsewhere.status_code == 409
    assert await count(app_client) == before


async def test_a_retried_batch_writes_nothing(app_client: httpx.AsyncClient):
    before, headers = await count(app_client), keyed(ALICE)
    body = {"memories": [{"content": f"fact {i}"} for i in range(5)]}
    first = await app_client.post("/memory/batch", json=body, headers=headers)
    again = await app_client.post("/memory/batch", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["memory_ids"] == first.json()["memory_ids"]
    assert await count(app_client) == before + 5


async def test_keys_belong_to_their_user(app_client: httpx.AsyncClient):
    key = str(uuid.uuid4())
    body = {"content": "I like green tea"}
    alice = await app_client.post("/memory", json=body, headers=keyed(ALICE, key))
    bob = await app_client.post("/memory", json=body, headers=keyed(BOB, key))
    assert alice.status_code == bob.status_code == 201
    assert "idempotent-replayed" not in bob.headers
    assert alice.json()["memory_id"] != bob.json()["memory_id"]
    # Bob's key does not replay Alice's response, nor does Alice see Bob's memory.
    seen = await app_client.get(f"/memory/{bob.json()['memory_id']}", headers=ALICE)
    assert seen.status_code == 404


async def test_a_write_that_never_answered_is_finished_by_the_retry(
    app_client: httpx.AsyncClient,
):
    """The first attempt wrote the memory and its key, then died before answering."""
    key, body = str(uuid.uuid4()), {"content": "Alice's sister is called Ana"}
    first = await app_client.post("/memory", json=body, headers=keyed(ALICE, key))
    await graph_query(
        app_client,
        "MATCH (k:IdempotencyKey {key: $key}) REMOVE k.response, k.status",
        {"key": key},
    )
    before = await count(app_client)
    retry = await app_client.post("/memory", json=body, headers=keyed(ALICE, key))
    assert retry.status_code == 201
    assert retry.json()["memory_id"] == first.json()["memory_id"]
    assert retry.headers["idempotent-replayed"] == "true"
    assert await count(app_client) == before


async def test_an_expired_key_is_a_new_request(app_client: httpx.AsyncClient):
    # allow_duplicate: a new request with this content stores a new memory (not the first one's,
    # found again by content: tests/memories/test_duplicates.py).
    key, body = str(uuid.uuid4()), {"content": "Alice plays the cello", "allow_duplicate": True}
    first = await app_client.post("/memory", json=body, headers=keyed(ALICE, key))
    await graph_query(
        app_client,
        "MATCH (k:IdempotencyKey {key: $key}) SET k.expires_at = '2000-01-01T00:00:00+00:00'",
        {"key": key},
    )
    later = await app_client.post("/memory", json=body, headers=keyed(ALICE, key))
    assert later.status_code == 201
    assert later.json()["memory_id"] != first.json()["memory_id"]
    rows = await graph_query(
        app_client, "MATCH (k:IdempotencyKey {key: $key}) RETURN count(k)", {"key": key}
    )
    assert rows == [[1]]  # the expired key was swept by the new claim


async def test_a_retried_associate_links_once(app_client: httpx.AsyncClient):
    ids = [
        (await app_client.post("/memory", json={"content": c}, headers=ALICE)).json()["memory_id"]
        for c in ("Alice uses Python", "Alice writes a compiler")
    ]
    body = {"memory1_id": ids[0], "memory2_id": ids[1], "type": "RELATES_TO", "strength": 0.7}
    headers = keyed(ALICE)
    first = await app_client.post("/associate", json=body, headers=headers)
    again = await app_client.post("/associate", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    other = await app_client.post("/associate", json={**body, "strength": 0.9}, headers=headers)
    assert other.status_code == 409
    related = await app_client.get(f"/memories/{ids[0]}/related", headers=ALICE)
    assert related.json()["count"] == 1


async def test_a_retried_remember_queues_one_job(app_client: httpx.AsyncClient):
    body = {"session_id": "s1", "messages": [{"role": "user", "content": "I moved to Porto."}]}
    headers = keyed(ALICE)
    first = await app_client.post("/remember", json=body, headers=headers)
    again = await app_client.post("/remember", json=body, headers=headers)
    assert first.status_code == again.status_code == 202
    assert again.json()["job_id"] == first.json()["job_id"]
    other = await app_client.post("/remember", json={**body, "session_id": "s2"}, headers=headers)
    assert other.status_code == 409


async def test_a_bad_key_is_400(app_client: httpx.AsyncClient):
    headers = {**ALICE, "Idempotency-Key": "x" * 256}
    response = await app_client.post("/memory", json={"content": "ok"}, headers=headers)
    assert response.status_code == 400
    assert "idempotency-key" in response.json()["message"].lower()


async def visible(client: httpx.AsyncClient, memory_id: str, headers: dict[str, str]) -> bool:
    return (await client.get(f"/memory/{memory_id}", headers=headers)).status_code == 200


async def test_sibling_agents_keys_are_their_own(app_client: httpx.AsyncClient):
    key, body = str(uuid.uuid4()), {"content": "The standup moved to 10:00"}
    bob = await app_client.post("/memory", json=body, headers=keyed(WEBUI_BOB, key))
    carol = await app_client.post("/memory", json=body, headers=keyed(WEBUI_CAROL, key))
    assert bob.status_code == carol.status_code == 201, carol.text
    assert "idempotent-replayed" not in carol.headers
    bob_id, carol_id = bob.json()["memory_id"], carol.json()["memory_id"]
    assert bob_id != carol_id
    assert await visible(app_client, carol_id, WEBUI_CAROL)
    assert not await visible(app_client, bob_id, WEBUI_CAROL)
    again = await app_client.post("/memory", json=body, headers=keyed(WEBUI_CAROL, key))
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["memory_id"] == carol_id


async def test_an_agent_bound_key_never_replays_the_users_shared_write(
    app_client: httpx.AsyncClient,
):
    """Without X-Agent-Id the user's key writes shared memories, the agent-bound key its agent's:
    the same key and body are two scopes' requests."""
    key, body = str(uuid.uuid4()), {"content": "Prefers dark roast coffee"}
    shared = await app_client.post("/memory", json=body, headers=keyed(ALICE, key))
    agent = await app_client.post("/memory", json=body, headers=keyed(WEBUI, key))
    assert shared.status_code == agent.status_code == 201, agent.text
    assert "idempotent-replayed" not in agent.headers
    agent_id = agent.json()["memory_id"]
    assert agent_id != shared.json()["memory_id"]
    memory = (await app_client.get(f"/memory/{agent_id}", headers=WEBUI)).json()["memory"]
    assert memory["agent_id"] == "openwebui"


async def test_one_scope_reached_two_ways_replays(app_client: httpx.AsyncClient):
    key, body = str(uuid.uuid4()), {"content": "The release is on Friday"}
    first = await app_client.post("/memory", json=body, headers=keyed(WEBUI, key))
    named = auth(AGENT_KEY, "openwebui")  # the key's own agent, named
    for headers in (named, auth(ALICE_KEY, "openwebui")):
        again = await app_client.post("/memory", json=body, headers=keyed(headers, key))
        assert again.status_code == 201, again.text
        assert again.headers["idempotent-replayed"] == "true"
        assert again.json()["memory_id"] == first.json()["memory_id"]


async def test_sibling_agents_remember_with_one_key_queues_two_jobs(
    app_client: httpx.AsyncClient,
):
    key = str(uuid.uuid4())
    body = {"session_id": "s3", "messages": [{"role": "user", "content": "I moved to Braga."}]}
    bob = await app_client.post("/remember", json=body, headers=keyed(WEBUI_BOB, key))
    carol = await app_client.post("/remember", json=body, headers=keyed(WEBUI_CAROL, key))
    assert bob.status_code == carol.status_code == 202, carol.text
    assert "idempotent-replayed" not in carol.headers
    assert bob.json()["job_id"] != carol.json()["job_id"]
