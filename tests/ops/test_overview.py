"""The console's endpoints on real stores: GET /me/stats, /me/sessions and /me/graph count and
draw the caller's scope only (user and agent); GET /memory's text, agent and session filters and
its total; the operator's GET /admin/users and read-only look at one user's memory, each look
in the audit log, and refused to a user's key."""

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.storage.graph.store import GraphStore
from tests.conftest import ADMIN_KEY, AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client
from tests.conftest import test_settings as settings_for

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)
OPENWEBUI = auth(AGENT_KEY)  # Alice's key bound to the agent prefix "openwebui"


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings_for(tmp_path, falkordb_url=falkordb_url, enrichment_enabled=False)
    async with running_client(settings) as client:
        yield client


async def store(client: httpx.AsyncClient, headers: dict, **body: object) -> str:
    response = await client.post("/memory", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


async def written(client: httpx.AsyncClient) -> dict[str, str]:
    ids = {
        "tea": await store(
            client, ALICE, content="Alice drinks oolong", type="Preference", tags=["drinks"]
        ),
        "berlin": await store(client, ALICE, content="Alice lives in Berlin", tags=["home"]),
        "agent": await store(client, OPENWEBUI, content="Alice chats in French", tags=["chat"]),
        "bob": await store(client, BOB, content="Bob drinks green tea", tags=["drinks", "bob"]),
    }
    linked = await client.post(
        "/associate",
        headers=ALICE,
        json={"memory1_id": ids["tea"], "memory2_id": ids["berlin"], "type": "RELATES_TO"},
    )
    assert linked.status_code in (200, 201), linked.text
    patched = await client.patch(
        f"/memory/{ids['tea']}", json={"content": "Alice drinks sencha"}, headers=ALICE
    )
    assert patched.status_code == 200, patched.text
    return ids


async def stats(client: httpx.AsyncClient, headers: dict) -> dict:
    response = await client.get("/me/stats", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_stats_count_the_callers_scope_only(client: httpx.AsyncClient) -> None:
    await written(client)
    alice = await stats(client, ALICE)
    assert alice["total"] == 2  # shared memories only: no agent asked for
    assert alice["by_type"]["Preference"] == 1
    assert alice["by_agent"] == {"(shared)": 2}
    assert alice["by_tag"] == {"drinks": 1, "home": 1}
    assert sum(day["count"] for day in alice["per_day"]) == 2
    assert alice["storage"]["revisions"] >= 1 and alice["storage"]["content_chars"] > 0

    agent = await stats(client, OPENWEBUI)
    assert agent["total"] == 3 and agent["by_agent"]["openwebui"] == 1
    assert "chat" in agent["by_tag"]

    bob = await stats(client, BOB)
    assert bob["total"] == 1 and bob["by_tag"] == {"bob": 1, "drinks": 1}
    assert bob["storage"]["revisions"] == 0  # Alice's revision is not counted as Bob's


async def test_the_graph_draws_the_callers_memories_and_links_only(
    client: httpx.AsyncClient,
) -> None:
    ids = await written(client)
    answer = await client.get("/me/graph", headers=ALICE)
    assert answer.status_code == 200, answer.text
    drawn = answer.json()
    assert {n["id"] for n in drawn["nodes"]} == {ids["tea"], ids["berlin"]}
    assert {"source": ids["tea"], "target": ids["berlin"], "type": "RELATES_TO"} in drawn["edges"]
    bob = (await client.get("/me/graph", headers=BOB)).json()
    assert [n["id"] for n in bob["nodes"]] == [ids["bob"]] and bob["edges"] == []


async def test_sessions_are_listed_in_scope(client: httpx.AsyncClient) -> None:
    await store(client, ALICE, content="Alice booked a flight", source={"session_id": "trip"})
    mine = (await client.get("/me/sessions", headers=ALICE)).json()["sessions"]
    assert [(s["session_id"], s["facts"]) for s in mine] == [("trip", 1)]
    assert (await client.get("/me/sessions", headers=BOB)).json()["sessions"] == []


async def test_the_listing_filters_by_text_agent_and_session_and_counts_them(
    client: httpx.AsyncClient,
) -> None:
    ids = await written(client)
    found = await client.get(
        "/memory", params={"text": "SENCHA", "include_total": "true"}, headers=ALICE
    )
    assert found.status_code == 200, found.text
    assert [m["id"] for m in found.json()["memories"]] == [ids["tea"]]
    assert found.json()["total"] == 1
    page = (await client.get("/memory?limit=1&include_total=true", headers=ALICE)).json()
    assert (page["count"], page["total"]) == (1, 2)
    assert (await client.get("/memory", headers=ALICE)).json()["total"] is None
    agent = await client.get("/memory", params={"agent": "openwebui"}, headers=OPENWEBUI)
    assert [m["id"] for m in agent.json()["memories"]] == [ids["agent"]]
    # Another user's agent or text: nothing, whatever the filter says.
    bob = await client.get("/memory", params={"text": "alice", "include_total": 1}, headers=BOB)
    assert bob.json()["memories"] == [] and bob.json()["total"] == 0


async def looks(graph: GraphStore) -> list[tuple]:
    rows = await graph.ro_query(
        "MATCH (e:AuditEvent {action: 'admin_view'}) RETURN e.what, e.user_id, e.actor"
        " ORDER BY e.at"
    )
    return [tuple(row) for row in rows]


async def test_the_operator_lists_users_and_looks_into_one_read_only_audited(
    client: httpx.AsyncClient,
) -> None:
    ids = await written(client)
    for path in ("/admin/users", "/admin/users/alice/stats", "/admin/users/alice/memories"):
        refused = await client.get(path, headers=ALICE)
        assert refused.status_code == 403, path
        assert refused.json()["message"] == "This endpoint needs the admin key"

    made = await client.post("/admin/keys", headers=ADMIN, json={"user_id": "carol"})
    assert made.status_code == 201, made.text
    answer = await client.get("/admin/users", headers=ADMIN)
    assert answer.status_code == 200, answer.text
    users = {u["user_id"]: u for u in answer.json()["users"]}
    assert (users["alice"]["memories"], users["bob"]["memories"]) == (3, 1)
    assert users["alice"]["last_write"] is not None
    assert {k["source"] for k in users["alice"]["keys"]} == {"configured"}
    assert {k["agent_prefix"] for k in users["alice"]["keys"]} == {None, "openwebui"}
    assert all(set(k) >= {"key_id"} and ALICE_KEY not in str(k) for k in users["alice"]["keys"])
    carol = users["carol"]  # a key made at runtime, no memory yet
    assert (carol["memories"], carol["last_write"]) == (0, None)
    assert [(k["key_id"], k["source"]) for k in carol["keys"]] == [
        (made.json()["key_id"], "runtime")
    ]
    assert made.json()["api_key"] not in answer.text
    assert answer.json()["disk"]["qdrant"] > 0  # the embedded vector store's files

    alice = (await client.get("/admin/users/alice/stats", headers=ADMIN)).json()
    assert alice["total"] == 3 and alice["by_agent"] == {"(shared)": 2, "openwebui": 1}
    listed = await client.get("/admin/users/alice/memories?include_total=true", headers=ADMIN)
    assert {m["id"] for m in listed.json()["memories"]} == {ids["tea"], ids["berlin"], ids["agent"]}
    assert listed.json()["total"] == 3
    nobody = await client.get("/admin/users/no%20such/memories", headers=ADMIN)
    assert nobody.status_code == 200 and nobody.json()["memories"] == []
    bad = await client.get("/admin/users/a%01b/memories", headers=ADMIN)
    assert bad.status_code == 400 and "user_id" in bad.json()["message"]

    graph = client.app.state.stores.graph  # type: ignore[attr-defined]
    actor = next(a for _, _, a in await looks(graph))
    assert actor.startswith("admin/key:")
    assert [(what, user) for what, user, _ in await looks(graph)] == [
        ("users", None),
        ("stats", "alice"),
        ("memories", "alice"),
        ("memories", "no such"),
    ]
