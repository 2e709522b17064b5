"""The window vector of a point (a conversation turn embedded with the turns before it), on both
the Edge and the qdrant-client adapter: set, searched within the scope, cleared, dropped with the
point or by an upsert, and added to an Edge shard made before it existed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import qdrant_edge as qe
from qdrant_client import AsyncQdrantClient, models

from app.storage.vectors import EdgeVectorIndex, RemoteVectorIndex
from tests.storage.test_vectors_contract import (
    DIM,
    Harness,
    axis,
    flt,
    new_id,
    payload,
    point,
)
from tests.storage.test_vectors_contract import harness as harness  # noqa: F401 (fixture)

pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")


async def test_window_vectors_are_searched_apart_from_the_dense_ones(harness: Harness) -> None:
    index = harness.index
    first, second, bare = point(axis(0), "one"), point(axis(1), "two"), point(axis(2), "three")
    await index.upsert([first, second, bare])

    await index.set_windows({first.id: axis(3), second.id: axis(4), new_id(): axis(3)})

    assert [h.id for h in await index.search_window(axis(4), flt(), 5)][0] == second.id
    assert {h.id for h in await index.search_window(axis(3), flt(), 5)} == {first.id, second.id}
    assert [h.id for h in await index.search_dense(axis(0), flt(), 1)] == [first.id]
    record = (await index.retrieve([first.id]))[first.id]
    assert record.has_dense and record.dense is not None and record.dense[0] > 0.99


async def test_window_search_keeps_to_the_scope(harness: Harness) -> None:
    index = harness.index
    mine = point(axis(0), "mine", payload("alice"))
    theirs = point(axis(0), "theirs", payload("bob"))
    other_agent = point(axis(0), "agent's", payload("alice", "helper"))
    await index.upsert([mine, theirs, other_agent])
    await index.set_windows({p.id: axis(5) for p in (mine, theirs, other_agent)})

    assert [h.id for h in await index.search_window(axis(5), flt("alice"), 10)] == [mine.id]
    assert [h.id for h in await index.search_window(axis(5), flt("bob"), 10)] == [theirs.id]
    found = {h.id for h in await index.search_window(axis(5), flt("alice", "helper"), 10)}
    assert found == {mine.id, other_agent.id}


async def test_clear_delete_and_upsert_remove_the_window(harness: Harness) -> None:
    index = harness.index
    cleared, deleted, replaced, kept = (point(axis(i), f"turn {i}") for i in range(4))
    await index.upsert([cleared, deleted, replaced, kept])
    await index.set_windows({p.id: axis(6) for p in (cleared, deleted, replaced, kept)})

    await index.clear_windows([cleared.id, new_id()])
    await index.delete([deleted.id])
    await index.upsert([replaced])  # a re-embedding writes the whole point again

    assert [h.id for h in await index.search_window(axis(6), flt(), 10)] == [kept.id]
    assert [h.id for h in await index.search_dense(axis(0), flt(), 1)] == [cleared.id]


async def test_drop_dense_drops_the_windows_too(harness: Harness) -> None:
    index = harness.index
    turn = point(axis(1), "a turn")
    await index.upsert([turn])
    await index.set_windows({turn.id: axis(2)})

    await index.drop_dense()

    assert await index.search_window(axis(2), flt(), 5) == []
    await index.upsert([turn])
    await index.set_windows({turn.id: axis(2)})
    assert [h.id for h in await index.search_window(axis(2), flt(), 5)] == [turn.id]


async def test_windows_survive_reopening(harness: Harness) -> None:
    turn = point(axis(1), "a turn")
    await harness.index.upsert([turn])
    await harness.index.set_windows({turn.id: axis(7)})

    reopened = await harness.reopen(DIM)

    assert [h.id for h in await reopened.search_window(axis(7), flt(), 5)] == [turn.id]


async def test_an_edge_shard_made_before_windows_gets_them_on_open(tmp_path: Path) -> None:
    shard_dir = tmp_path / "old"
    dense = qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)
    sparse = qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)
    old = qe.EdgeShard.create(str(shard_dir), qe.EdgeConfig({"dense": dense}, {"bm25": sparse}))
    old.close()

    index = EdgeVectorIndex(shard_dir, DIM)
    await index.open()
    try:
        assert index.windows_added
        turn = point(axis(1), "an old turn")
        await index.upsert([turn])
        await index.set_windows({turn.id: axis(2)})
        assert [h.id for h in await index.search_window(axis(2), flt(), 5)] == [turn.id]
    finally:
        await index.close()
    config = json.loads((shard_dir / "edge_config.json").read_text())
    assert config["vectors"]["window"]["datatype"] == "float16"

    again = EdgeVectorIndex(shard_dir, DIM)
    await again.open()
    try:
        assert not again.windows_added
        assert [h.id for h in await again.search_window(axis(2), flt(), 5)] == [turn.id]
    finally:
        await again.close()


async def test_a_qdrant_collection_without_windows_runs_without_them() -> None:
    client = AsyncQdrantClient(location=":memory:")
    try:
        await client.create_collection(
            "old",
            vectors_config={
                "dense": models.VectorParams(size=DIM, distance=models.Distance.COSINE)
            },
            sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        index = RemoteVectorIndex(collection="old", dimension=DIM, client=client)
        await index.open()
        turn = point(axis(1), "an old turn")
        await index.upsert([turn])

        await index.set_windows({turn.id: axis(2)})
        await index.clear_windows([turn.id])

        assert not index.has_windows
        assert await index.search_window(axis(2), flt(), 5) == []
        assert [h.id for h in await index.search_dense(axis(1), flt(), 5)] == [turn.id]
        await index.drop_dense()
    finally:
        await client.close()
