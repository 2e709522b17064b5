"""Auth and tenancy: no key → 401 everywhere; user B sees nothing of user A's anywhere."""

import httpx
import pytest

from tests.conftest import ADMIN_KEY, AGENT_KEY, ALICE_KEY, BOB_KEY, auth

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
SOME_ID = "00000000-0000-4000-8000-000000000000"

ENDPOINTS = [
    ("POST", "/memory", {"content": "x"}),
    ("POST", "/memory/batch", {"memories": [{"content": "x"}]}),
    ("GET", f"/memory/{SOME_ID}", None),
    ("PATCH", f"/memory/{SOME_ID}", {"importance": 1}),
    ("DELETE", f"/memory/{SOME_ID}", None),
    ("GET", f"/memory/{SOME_ID}/history", None),
    ("POST", f"/memory/{SOME_ID}/artifacts", {"filename": "a.txt", "content": "x"}),
    ("GET", f"/memory/{SOME_ID}/artifacts", None),
    ("GET", f"/memory/{SOME_ID}/artifacts/{SOME_ID}", None),
    ("DELETE", f"/memory/{SOME_ID}/artifacts/{SOME_ID}", None),
    ("POST", f"/memory/{SOME_ID}/artifacts/{SOME_ID}/url", None),
    ("GET", "/memory", None),
    ("GET", "/memory/by-tag?tags=x", None),
    ("DELETE", "/memory/by-tag?tags=x", None),
    ("GET", "/recall?query=x", None),
    ("POST", "/recall", {"query": "x"}),
    ("POST", "/recall/context", {"query": "x"}),
    ("GET", "/core", None),
    ("GET", "/startup-recall", None),
    ("POST", "/associate", {"memory1_id": SOME_ID, "memory2_id": SOME_ID}),
    ("DELETE", "/associate", {"memory1_id": SOME_ID, "memory2_id": SOME_ID}),
    ("GET", f"/memories/{SOME_ID}/related", None),
    ("GET", "/enrichment/status", None),
    ("GET", "/entities", None),
    ("GET", "/entity/x", None),
    ("POST", "/enrichment/reprocess", {"ids": [SOME_ID]}),
    ("POST", "/remember", {"messages": [{"role": "user", "content": "x"}], "session_id": "s"}),
    ("GET", "/remember/jobs/remember:alice/x", None),
    ("POST", "/admin/sync", {}),
    ("POST", "/admin/reembed", {}),
    ("GET", "/admin/jobs/sync:manual", None),
    ("GET", "/admin/dead-letters", None),
    ("GET", "/admin/debug/tasks", None),
    ("GET", "/backup", None),
    ("POST", "/admin/restore", None),
    ("GET", "/admin/export", None),
    ("POST", "/admin/import", None),
    ("POST", "/admin/migrate", None),
    ("POST", "/admin/vectors/index", None),
    ("DELETE", "/admin/users/alice", None),
    ("DELETE", f"/admin/memories/{SOME_ID}", None),
    ("DELETE", f"/memory/{SOME_ID}?erase=true", None),
    ("GET", "/me/export", None),
    ("DELETE", "/me?confirm=alice", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
async def test_every_memory_endpoint_needs_a_key(
    app_client: httpx.AsyncClient, method: str, path: str, body: dict | None
):
    for headers in ({}, auth("wrong-key"), {"X-API-Key": ""}, {"Authorization": "Basic abc"}):
        response = await app_client.request(method, path, json=body, headers=headers)
        assert response.status_code == 401, (headers, response.text)
        assert response.json()["code"] == 401
    in_query = await app_client.request(
        method, f"{path}{'&' if '?' in path else '?'}api_key={ALICE_KEY}", json=body
    )
    assert in_query.status_code == 401


async def test_x_api_key_header_works_and_admin_key_is_not_a_user(app_client: httpx.AsyncClient):
    ok = await app_client.post(
        "/memory", json={"content": "via x-api-key"}, headers={"X-API-Key": ALICE_KEY}
    )
    assert ok.status_code == 201
    admin = await app_client.post("/memory", json={"content": "x"}, headers=auth(ADMIN_KEY))
    assert admin.status_code == 403


async def test_user_b_sees_nothing_of_user_a(app_client: httpx.AsyncClient):
    created = await app_client.post(
        "/memory", json={"content": "Alice's secret plan", "tags": ["secret"]}, headers=ALICE
    )
    memory_id = created.json()["memory_id"]
    batch = await app_client.post(
        "/memory/batch", json={"memories": [{"content": "more", "tags": ["secret"]}]}, headers=ALICE
    )
    batch_id = batch.json()["memory_ids"][0]

    for target in (memory_id, batch_id):
        assert (await app_client.get(f"/memory/{target}", headers=BOB)).status_code == 404
        assert (await app_client.get(f"/memory/{target}/history", headers=BOB)).status_code == 404
        patch = await app_client.patch(f"/memory/{target}", json={"content": "pwned"}, headers=BOB)
        assert patch.status_code == 404
        assert (await app_client.delete(f"/memory/{target}", headers=BOB)).status_code == 404
    listed = await app_client.get("/memory/by-tag", params={"tags": "secret"}, headers=BOB)
    assert listed.json()["count"] == 0
    wiped = await app_client.delete("/memory/by-tag", params={"tags": "secret"}, headers=BOB)
    assert wiped.json()["deleted_count"] == 0
    health = await app_client.get("/health", headers=BOB)
    assert health.json()["memory_count"] == 0

    mine = (await app_client.get(f"/memory/{memory_id}", headers=ALICE)).json()["memory"]
    assert mine["content"] == "Alice's secret plan" and mine["version"] == 1
    history = (await app_client.get(f"/memory/{memory_id}/history", headers=ALICE)).json()
    assert [e["action"] for e in history["events"]] == ["create"]
    assert (
        await app_client.get("/memory/by-tag", params={"tags": "secret"}, headers=ALICE)
    ).json()["count"] == 2


async def test_deleted_memory_history_is_not_visible_to_another_user(app_client: httpx.AsyncClient):
    created = await app_client.post("/memory", json={"content": "short-lived"}, headers=ALICE)
    memory_id = created.json()["memory_id"]
    await app_client.delete(f"/memory/{memory_id}", headers=ALICE)
    assert (await app_client.get(f"/memory/{memory_id}/history", headers=BOB)).status_code == 404
    assert (await app_client.get(f"/memory/{memory_id}/history", headers=ALICE)).status_code == 200


async def create_as(client: httpx.AsyncClient, agent: str | None, content: str, **extra) -> str:
    response = await client.post(
        "/memory", json={"content": content, **extra}, headers=auth(ALICE_KEY, agent)
    )
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


async def visible(client: httpx.AsyncClient, agent: str | None, memory_id: str) -> bool:
    response = await client.get(f"/memory/{memory_id}", headers=auth(ALICE_KEY, agent))
    return response.status_code == 200


async def test_agent_scopes_follow_the_sub_agent_rule(app_client: httpx.AsyncClient):
    shared = await create_as(app_client, None, "shared by all agents")
    parent = await create_as(app_client, "openwebui", "the parent agent's own")
    bob = await create_as(app_client, "openwebui", "bob's own", agent_id="openwebui:bob")
    cursor = await create_as(app_client, "cursor", "cursor's own")

    expectations = {
        None: {shared},
        "openwebui": {shared, parent, bob},
        "openwebui:bob": {shared, bob},
        "openwebui:alice": {shared},
        "cursor": {shared, cursor},
    }
    everything = {shared, parent, bob, cursor}
    for agent, expected in expectations.items():
        seen = {m for m in everything if await visible(app_client, agent, m)}
        assert seen == expected, agent


async def test_agent_id_outside_the_callers_agent_is_refused(app_client: httpx.AsyncClient):
    response = await app_client.post(
        "/memory",
        json={"content": "x", "agent_id": "cursor:foo"},
        headers=auth(ALICE_KEY, "openwebui"),
    )
    assert response.status_code == 403
    assert "outside your agent scope" in response.json()["message"]


async def test_agent_bound_key_is_confined_to_its_prefix(app_client: httpx.AsyncClient):
    default = await app_client.post(
        "/memory", json={"content": "from the plugin"}, headers=auth(AGENT_KEY)
    )
    memory = (
        await app_client.get(f"/memory/{default.json()['memory_id']}", headers=auth(AGENT_KEY))
    ).json()
    assert memory["memory"]["agent_id"] == "openwebui" and memory["memory"]["user_id"] == "alice"

    sub = await app_client.post(
        "/memory", json={"content": "x"}, headers=auth(AGENT_KEY, "openwebui:bob")
    )
    assert sub.status_code == 201
    other = await app_client.get(f"/memory/{SOME_ID}", headers=auth(AGENT_KEY, "cursor"))
    assert other.status_code == 403
    bad = await app_client.get(f"/memory/{SOME_ID}", headers=auth(ALICE_KEY, "bad agent"))
    assert bad.status_code == 400


async def test_enrichment_status_counts_only_the_callers_memories(app_client: httpx.AsyncClient):
    async def counted(headers: dict[str, str]) -> int:
        response = await app_client.get("/enrichment/status", headers=headers)
        assert response.status_code == 200, response.text
        return sum(response.json()["enrichment"]["memories"].values())

    before = {
        who: await counted(auth(key))
        for who, key in (("alice", ALICE_KEY), ("bob", BOB_KEY), ("admin", ADMIN_KEY))
    }
    stored = await app_client.post(
        "/memory", json={"content": "one more of Alice's"}, headers=ALICE
    )
    assert stored.status_code == 201

    assert await counted(BOB) == before["bob"]
    assert await counted(ALICE) == before["alice"] + 1
    assert await counted(auth(ADMIN_KEY)) == before["admin"] + 1
    assert before["admin"] >= before["alice"] + before["bob"]


async def test_a_remember_job_is_read_only_by_the_scope_that_made_it(
    app_client: httpx.AsyncClient,
):
    """Issue 41, item 6: a sibling agent that knew a job id read another agent's /remember job
    (the ids it stored). The job is the scope's that made it: user and agent."""
    body = {"messages": [{"role": "user", "content": "I moved to Lisbon"}], "session_id": "s"}
    made = await app_client.post("/remember", json=body, headers=auth(ALICE_KEY, "planner"))
    assert made.status_code == 202, made.text
    path = f"/remember/jobs/{made.json()['job_id']}"

    assert (await app_client.get(path, headers=auth(ALICE_KEY, "planner"))).status_code == 200
    for other in (
        auth(ALICE_KEY, "writer"),  # a sibling agent
        auth(ALICE_KEY, "planner:sub"),  # a sub-agent
        auth(ALICE_KEY),  # the user, with no agent
        BOB,
    ):
        answer = await app_client.get(path, headers=other)
        assert answer.status_code == 404, (other, answer.text)
        assert answer.json()["error"] == "not_found"

    shared = await app_client.post("/remember", json=body, headers=ALICE)
    shared_path = f"/remember/jobs/{shared.json()['job_id']}"
    assert (await app_client.get(shared_path, headers=ALICE)).status_code == 200
    sibling = await app_client.get(shared_path, headers=auth(ALICE_KEY, "planner"))
    assert sibling.status_code == 404


async def test_health_counts_the_memories_the_callers_scope_sees(app_client: httpx.AsyncClient):
    """Issue 41, item 8: /health's memory_count was the user-wide count in every agent scope."""

    async def counted(agent: str | None) -> int:
        answer = await app_client.get("/health", headers=auth(ALICE_KEY, agent))
        assert answer.status_code == 200, answer.text
        return answer.json()["memory_count"]

    scopes = (None, "counter", "counter:sub", "other-counter")
    before = {agent: await counted(agent) for agent in scopes}
    await create_as(app_client, "counter", "the counter agent's own")
    await create_as(app_client, "counter", "its sub-agent's", agent_id="counter:sub")
    after = {agent: await counted(agent) for agent in scopes}
    assert after == {
        None: before[None],
        "counter": before["counter"] + 2,
        "counter:sub": before["counter:sub"] + 1,
        "other-counter": before["other-counter"],
    }

    await create_as(app_client, None, "shared by every agent")
    assert {agent: await counted(agent) for agent in scopes} == {
        agent: count + 1 for agent, count in after.items()
    }
    admin = (await app_client.get("/health", headers=auth(ADMIN_KEY))).json()["memory_count"]
    assert admin >= after["counter"] + 1


async def test_health_with_an_agent_outside_the_keys_prefix_is_refused(
    app_client: httpx.AsyncClient,
):
    outside = await app_client.get("/health", headers=auth(AGENT_KEY, "cursor"))
    assert outside.status_code == 403 and outside.json()["error"] == "forbidden"
    inside = await app_client.get("/health", headers=auth(AGENT_KEY, "openwebui:bob"))
    assert inside.status_code == 200 and inside.json()["memory_count"] >= 0
    responses = (await app_client.get("/openapi.json")).json()["paths"]["/health"]["get"]
    assert {"400", "401", "403"} <= set(responses["responses"])


async def test_an_unreadable_record_is_seen_and_repaired_only_in_its_owners_scope(
    app_client: httpx.AsyncClient,
):
    """Issue 41: a record whose metadata does not parse is read as empty by every scope that
    can see it; fsck reports and repairs it in that scope only (not Bob's, not a sibling
    agent's, not the agent-less user's)."""
    memory_id = await create_as(app_client, "planner", "A record half written by a crash")
    graph = app_client.app.state.runtime.stores.graph  # type: ignore[attr-defined]
    await graph.query("MATCH (m:Memory {id: $id}) SET m.metadata = ''", {"id": memory_id})

    async def fsck_as(headers: dict[str, str], apply: bool) -> dict:
        answer = await app_client.post("/admin/fsck", json={"apply": apply}, headers=headers)
        assert answer.status_code == 200, answer.text
        return answer.json()

    for outsider in (BOB, auth(ALICE_KEY, "writer"), ALICE):
        assert "unreadable_property" not in (await fsck_as(outsider, False))["counts"]
    stored = await graph.query("MATCH (m:Memory {id: $id}) RETURN m.metadata", {"id": memory_id})
    assert stored == [[""]]
    owner = auth(ALICE_KEY, "planner")
    got = await app_client.get(f"/memory/{memory_id}", headers=owner)
    assert got.status_code == 200 and got.json()["memory"]["metadata"] == {}
    report = await fsck_as(owner, True)
    assert report["counts"]["unreadable_property"] == 1 and report["applied"] >= 1
    stored = await graph.query("MATCH (m:Memory {id: $id}) RETURN m.metadata", {"id": memory_id})
    assert stored == [["{}"]]
