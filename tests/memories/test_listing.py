"""GET /memory: the caller's memories, filtered, sorted and paged by cursor, on real stores."""

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.memories import listing as memory_listing
from app.scope import Scope
from app.storage.graph import listing
from app.storage.graph.records import scope_params
from app.storage.graph.schema import migrate
from app.storage.graph.store import GraphStore
from tests.conftest import AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client, test_settings
from tests.storage.test_query_plans import plan

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A fresh graph per test: listings see every memory of the user."""
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as client:
        yield client


async def store(client: httpx.AsyncClient, headers: dict, *items: dict) -> list[str]:
    response = await client.post("/memory/batch", json={"memories": list(items)}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_ids"]


async def pages(client: httpx.AsyncClient, headers: dict, query: str) -> list[list[str]]:
    """Every page's ids, following next_cursor to the end."""
    found, cursor = [], None
    while True:
        params = query + (f"&cursor={cursor}" if cursor else "")
        response = await client.get(f"/memory?{params}", headers=headers)
        assert response.status_code == 200, response.text
        body = response.json()
        found.append([m["id"] for m in body["memories"]])
        assert body["count"] == len(body["memories"])
        cursor = body["next_cursor"]
        if cursor is None:
            return found


async def listed(client: httpx.AsyncClient, headers: dict, query: str = "") -> list[str]:
    response = await client.get(f"/memory?limit=200&{query}", headers=headers)
    assert response.status_code == 200, response.text
    return [m["id"] for m in response.json()["memories"]]


async def test_pages_follow_the_cursor_newest_first_through_every_memory_once(client):
    ids = await store(client, ALICE, *({"content": f"note {i}"} for i in range(7)))
    assert await pages(client, ALICE, "limit=3") == [ids[6:3:-1], ids[3:0:-1], ids[:1]]
    assert await pages(client, ALICE, "limit=7") == [ids[::-1]]
    assert await pages(client, ALICE, "limit=4&order=asc") == [ids[:4], ids[4:]]


async def test_sorts_by_timestamp_or_updated_at_with_ties_broken_by_id(client):
    days = ["2024-03-02", "2024-01-05", "2024-03-02", "2024-02-10"]
    ids = await store(
        client, ALICE, *({"content": f"day {d} {i}", "timestamp": d} for i, d in enumerate(days))
    )
    tied = sorted([ids[0], ids[2]])
    assert await pages(client, ALICE, "sort=timestamp&order=asc&limit=1") == [
        [ids[1]],
        [ids[3]],
        [tied[0]],
        [tied[1]],
    ]
    assert await listed(client, ALICE, "sort=timestamp") == [tied[1], tied[0], ids[3], ids[1]]
    patched = await client.patch(f"/memory/{ids[1]}", json={"importance": 0.9}, headers=ALICE)
    assert patched.status_code == 200
    assert (await listed(client, ALICE, "sort=updated_at"))[0] == ids[1]


async def test_a_memory_written_between_pages_neither_repeats_nor_shifts_them(client):
    ids = await store(client, ALICE, *({"content": f"page item {i}"} for i in range(4)))
    first = (await client.get("/memory?limit=2&order=asc", headers=ALICE)).json()
    newer = await store(client, ALICE, {"content": "written while paging"})
    rest = await client.get(
        f"/memory?limit=10&order=asc&cursor={first['next_cursor']}", headers=ALICE
    )
    assert [m["id"] for m in first["memories"]] == ids[:2]
    assert [m["id"] for m in rest.json()["memories"]] == [*ids[2:], *newer]


async def test_filters_by_type_tags_labels_and_timestamp(client):
    fact, pref, other, old = await store(
        client,
        ALICE,
        {
            "content": "Water boils at 100 C",
            "type": "Fact",
            "tags": ["Science"],
            "timestamp": "2024-05-01",
        },
        {
            "content": "Prefers tea",
            "type": "preference",
            "labels": {"project": "tea", "env": ["a", "b"]},
        },
        {"content": "Some context", "labels": {"project": "coffee"}, "timestamp": "2024-06-01"},
        {"content": "An old fact", "type": "Fact", "timestamp": "2020-01-01"},
    )
    assert await listed(client, ALICE, "type=fact") == [old, fact]
    assert sorted(await listed(client, ALICE, "type=Fact,Preference")) == sorted([fact, pref, old])
    assert await listed(client, ALICE, "tags=science") == [fact]
    assert await listed(client, ALICE, "labels=project=tea") == [pref]
    assert await listed(client, ALICE, "labels=env=b&labels=project=tea") == [pref]
    assert await listed(client, ALICE, "labels=project=te") == []
    assert await listed(client, ALICE, "since=2024-01-01&until=2024-05-31T23:59:59Z") == [fact]
    assert await listed(client, ALICE, "sort=timestamp&since=2024-05-01") == [pref, other, fact]


async def test_state_current_hides_archived_and_no_longer_valid_memories(client):
    live, archived, ended = await store(
        client,
        ALICE,
        {"content": "still true"},
        {"content": "put away"},
        {"content": "was true once", "t_valid": "2020-01-01", "t_invalid": "2021-01-01"},
    )
    patched = await client.patch(f"/memory/{archived}", json={"archived": True}, headers=ALICE)
    assert patched.status_code == 200
    assert await listed(client, ALICE) == [live]
    assert await listed(client, ALICE, "state=archived") == [archived]
    assert sorted(await listed(client, ALICE, "state=all")) == sorted([live, archived, ended])


async def test_filters_by_any_layer_the_layer_vocabulary_has(client):
    raw, consolidated = await store(client, ALICE, {"content": "said in chat"}, {"content": "kept"})
    graph: GraphStore = client.app.state.stores.graph
    await graph.query("MATCH (m:Memory {id: $id}) SET m.layer = 'raw'", {"id": raw})
    assert await listed(client, ALICE, "layer=raw") == [raw]
    assert await listed(client, ALICE, "layer=CONSOLIDATED") == [consolidated]
    refused = await client.get("/memory?layer=dreams", headers=ALICE)
    assert refused.status_code == 400 and "'dreams'" in refused.json()["message"]


async def test_a_label_filter_reads_past_memories_whose_values_differ(client, monkeypatch):
    monkeypatch.setattr(memory_listing, "LABELLED_READ", 3)  # two reads per request
    monkeypatch.setattr(memory_listing, "READ_BUDGET", 6)
    items = [
        {"content": f"labelled {i}", "labels": {"p": "x" if i % 4 == 0 else "y"}} for i in range(12)
    ]
    ids = await store(client, ALICE, *items)
    wanted = [ids[i] for i in (0, 4, 8)]
    found = await pages(client, ALICE, "order=asc&limit=2&labels=p=x")
    assert [i for page in found for i in page] == wanted
    assert found == [wanted[:2], wanted[2:], []]  # the budget ends a page before it is full


async def test_lists_only_the_caller_s_scope(client):
    shared = await store(client, ALICE, {"content": "alice shared"})
    own = await store(client, auth(AGENT_KEY), {"content": "written by openwebui"})
    sub = await store(client, auth(AGENT_KEY, "openwebui:bob"), {"content": "by a sub-agent"})
    bobs = await store(client, BOB, {"content": "bob's"})
    assert await listed(client, BOB) == bobs
    assert await listed(client, ALICE) == shared
    assert await listed(client, auth(AGENT_KEY)) == [*sub, *own, *shared]
    assert await listed(client, auth(AGENT_KEY, "openwebui:bob")) == [*sub, *shared]
    cursor = (await client.get("/memory?limit=1", headers=ALICE)).json()["next_cursor"]
    assert cursor is None
    # A cursor carries a position only: bob following alice's still lists only bob's memories.
    alice_page = (await client.get("/memory?limit=1&order=asc", headers=auth(AGENT_KEY))).json()
    bob_next = await client.get(
        f"/memory?order=asc&cursor={alice_page['next_cursor']}", headers=BOB
    )
    assert [m["id"] for m in bob_next.json()["memories"]] == bobs


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("sort=importance", "sort"),
        ("order=up", "order"),
        ("state=deleted", "state"),
        ("type=Dream", "Unknown type 'Dream'"),
        ("labels=project", "Invalid 'labels'"),
        ("since=yesterday", "Invalid 'since'"),
        ("until=0001-01-01T00:00:00%2B14:00", "Invalid 'until'"),
        ("cursor=not-a-cursor", "Invalid 'cursor'"),
    ],
)
async def test_bad_parameters_are_400_naming_the_parameter(app_client, query: str, message: str):
    response = await app_client.get(f"/memory?{query}", headers=ALICE)
    assert response.status_code == 400, response.text
    assert message in response.json()["message"]


async def test_a_cursor_is_refused_for_another_order(app_client):
    await store(app_client, ALICE, {"content": "one"}, {"content": "two"})
    cursor = (await app_client.get("/memory?limit=1", headers=ALICE)).json()["next_cursor"]
    refused = await app_client.get(f"/memory?cursor={cursor}&sort=timestamp", headers=ALICE)
    assert refused.status_code == 400
    assert "sort=created_at order=desc" in refused.json()["message"]


@pytest.fixture
async def graph(falkordb_url: str) -> AsyncIterator[GraphStore]:
    store = GraphStore(falkordb_url, f"plans-{uuid.uuid4().hex[:8]}")
    await migrate(store)
    yield store
    await store.close()


@pytest.mark.parametrize("key", listing.PAGE_QUERIES)
async def test_the_listing_builds_properties_only_for_the_page(graph: GraphStore, key):
    params = {
        "now": "2024-01-01",
        "state": "current",
        "types": [],
        "layers": [],
        "tags": [],
        "label_keys": [],
        "since": None,
        "until": None,
        "after_value": None,
        "after_id": None,
        "limit": 5,
        **scope_params(Scope("ann")),
    }
    steps = await plan(graph, listing.PAGE_QUERIES[key], params)
    assert steps[:3] == ["Results", "Project", "Limit"], steps
