"""Window vectors, end to end with real workers: each turn of a conversation embedded with the two
before it, kept fresh when a turn is edited, left out of recall when a turn is deleted, and gone
from every window when a turn is erased."""

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.memories.windows import backfill_windows, window_text
from app.recall.windows import spread
from app.scope import Scope
from app.storage.graph import windows as store
from app.storage.vectors import VectorFilter, VectorHit
from app.wiring.schedule import enqueue_backlog
from tests.conftest import ALICE_KEY, BOB_KEY, auth, running_client, test_settings
from tests.memories.test_embedding_jobs import FAST_JOBS, wait_until

H, BOB = auth(ALICE_KEY), auth(BOB_KEY)
ALICE = Scope("alice")
SESSION = {"session_id": "trip"}
WINDOW_MEMBERS = """
MATCH (m:Memory) WHERE m.id IN $ids AND m.user_id = $user AND m.window_members IS NOT NULL
RETURN m.id, m.window_members
"""
TURNS = [
    "We went to the natural history museum on Sunday",
    "The kids spent an hour in the fossil hall",
    "They loved the dinosaur exhibit most of all",
]


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, **FAST_JOBS)
    async with running_client(settings) as running:
        yield running


async def write_turns(client: httpx.AsyncClient, headers: dict | None = None) -> list[str]:
    items = [
        {"content": text, "source": {**SESSION, "message_id": str(i)}}
        for i, text in enumerate(TURNS)
    ]
    response = await client.post("/memory/batch", json={"memories": items}, headers=headers or H)
    return response.json()["memory_ids"]


async def members(client: httpx.AsyncClient, user: str, ids: list[str]) -> dict[str, list[str]]:
    rows = await client.app.state.stores.graph.ro_query(WINDOW_MEMBERS, {"ids": ids, "user": user})
    return {row[0]: list(row[1]) for row in rows}


async def windows_written(client: httpx.AsyncClient, ids: list[str], user: str = "alice") -> None:
    """Until every turn's window is recorded in the graph and its vector is in the index (the
    job writes the record first, then the vectors)."""

    async def done() -> bool:
        return len(await members(client, user, ids)) == len(ids)

    async def indexed() -> bool:
        only = VectorFilter(Scope(user), ids=list(ids))
        hits = await client.app.state.stores.vectors.search_window(probe, only, len(ids))
        return len(hits) == len(ids)

    probe = await client.app.state.runtime.embedder.embed_query("a window")
    await wait_until(done)
    await wait_until(indexed)


async def window_search(
    client: httpx.AsyncClient, text: str, scope: Scope = ALICE
) -> list[VectorHit]:
    vector = await client.app.state.runtime.embedder.embed_query(text)
    return await client.app.state.stores.vectors.search_window(vector, VectorFilter(scope), 10)


async def test_each_turn_gets_the_window_of_itself_and_the_two_before_it(
    client: httpx.AsyncClient,
) -> None:
    ids = await write_turns(client)
    alone = await client.post("/memory", json={"content": "A note in no conversation"}, headers=H)

    await windows_written(client, ids)

    assert (
        await members(client, "alice", ids)
        == {
            ids[0]: [ids[0]],  # it opens the conversation: its window is its own vector
            ids[1]: ids[:2],
            ids[2]: ids,
        }
    )
    assert await members(client, "alice", [alone.json()["memory_id"]]) == {}
    graph = client.app.state.stores.graph
    last = next(w for w in await store.window_turns(graph, "alice", [ids[2]]))
    hits = await window_search(client, window_text(last, with_date=True))
    assert hits[0].id == ids[2] and hits[0].score == pytest.approx(1.0, abs=1e-3)
    # The opener's window is its own vector: asked with that vector, its window scores 1. (Not
    # "the opener's text finds the opener first": against the window of the first two turns that
    # is a near tie, decided by the int8 model's last digits, which move with the batch.)
    record = (await client.app.state.stores.vectors.retrieve([ids[0]]))[ids[0]]
    assert record.dense is not None
    only = VectorFilter(ALICE, ids=[ids[0]])
    (opener,) = await client.app.state.stores.vectors.search_window(record.dense, only, 1)
    assert opener.id == ids[0] and opener.score == pytest.approx(1.0, abs=1e-3)


async def test_editing_a_turn_rewrites_the_windows_that_hold_it(client: httpx.AsyncClient) -> None:
    ids = await write_turns(client)
    await windows_written(client, ids)

    edited = "The kids spent the whole afternoon with the mammoth skeleton"
    await client.patch(f"/memory/{ids[1]}", json={"content": edited}, headers=H)

    graph = client.app.state.stores.graph

    async def rewritten() -> bool:
        last = next(w for w in await store.window_turns(graph, "alice", [ids[2]]))
        hits = await window_search(client, window_text(last, with_date=True))
        return bool(hits) and hits[0].id == ids[2] and hits[0].score > 0.999

    await wait_until(rewritten)


async def test_a_deleted_turn_leaves_the_windows_that_held_it(
    client: httpx.AsyncClient,
) -> None:
    ids = await write_turns(client)
    await windows_written(client, ids)
    graph = client.app.state.stores.graph
    assert await store.current_members(graph, ALICE, ids) == {
        ids[0]: [],
        ids[1]: [ids[0]],
        ids[2]: ids[:2],
    }

    await client.delete(f"/memory/{ids[1]}", headers=H)

    # The last turn's window held the deleted text: it is left out of recall at once, and then
    # written again; with no turn before it and none after, the last turn has no window at all.
    assert ids[2] not in await store.current_members(graph, ALICE, [ids[2]])

    async def rewritten() -> bool:
        return await members(client, "alice", [ids[2]]) == {}

    await wait_until(rewritten)
    assert await store.current_members(graph, ALICE, ids) == {ids[0]: []}
    assert ids[2] not in {h.id for h in await window_search(client, TURNS[2])}


async def test_an_erased_turn_leaves_every_window(client: httpx.AsyncClient) -> None:
    ids = await write_turns(client)
    await windows_written(client, ids)
    graph = client.app.state.stores.graph
    last = next(w for w in await store.window_turns(graph, "alice", [ids[2]]))
    window_of_last = window_text(last, with_date=True)

    response = await client.delete(f"/memory/{ids[1]}", params={"erase": "true"}, headers=H)

    assert response.status_code == 200
    assert await members(client, "alice", ids) == {ids[0]: [ids[0]]}
    assert ids[2] not in {h.id for h in await window_search(client, window_of_last)}


async def test_recall_searches_the_window_channel(client: httpx.AsyncClient) -> None:
    ids = await write_turns(client)
    note = await client.post(
        "/memory", json={"content": "Dinosaur exhibit tickets cost twelve dollars"}, headers=H
    )
    await windows_written(client, ids)

    async def matches(channels: str) -> dict[str, float]:
        params = {"query": "dinosaur exhibit", "channels": channels, "limit": 10}
        body = (await client.get("/recall", params=params, headers=H)).json()
        return {r["id"]: r["match_score"] for r in body["results"]}

    with_windows = await matches("dense,bm25,context,window")
    without = await matches("dense,bm25,context")
    # The window channel ran: it joins the fused score's normaliser, so a note in no
    # conversation (no window) matches less than without the channel; the turn the matching
    # window was made for keeps the top place.
    lone = note.json()["memory_id"]
    assert with_windows[lone] < without[lone]
    assert max(with_windows, key=with_windows.__getitem__) == ids[2]


async def test_windows_keep_to_their_tenant(client: httpx.AsyncClient) -> None:
    mine = await write_turns(client)
    theirs = await write_turns(client, BOB)
    await windows_written(client, mine)
    await windows_written(client, theirs, user="bob")
    graph = client.app.state.stores.graph

    assert await store.current_members(graph, Scope("bob"), mine) == {}
    assert set(await store.current_members(graph, Scope("bob"), theirs)) == set(theirs)
    found = {h.id for h in await window_search(client, TURNS[2], Scope("bob"))}
    assert found and found <= set(theirs)
    body = (await client.get("/recall", params={"query": "dinosaur exhibit"}, headers=BOB)).json()
    assert {r["id"] for r in body["results"]} <= set(theirs)


def test_a_window_places_its_own_turn_first_then_the_turns_before_it() -> None:
    hits = [VectorHit("c", 0.9, {}), VectorHit("b", 0.8, {}), VectorHit("x", 0.7, {})]
    found = spread(hits, {"c": ["a", "b"], "b": ["a"]})  # x's window is stale: left out
    assert found == [("c", 0.9), ("b", 0.9), ("a", 0.9)]


async def test_a_store_without_windows_gets_them_by_embedding_everything_again(
    client: httpx.AsyncClient,
) -> None:
    ids = await write_turns(client)
    await windows_written(client, ids)
    stores = client.app.state.stores
    await stores.vectors.clear_windows(ids)
    await store.forget_members(stores.graph, "alice", ids)  # as a shard from before windows

    assert await backfill_windows(stores) >= len(ids)
    await enqueue_backlog(client.app.state.runtime)  # what starting the workers does next

    await windows_written(client, ids)
    assert await members(client, "alice", ids) == {ids[0]: ids[:1], ids[1]: ids[:2], ids[2]: ids}
