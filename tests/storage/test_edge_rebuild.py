"""The Edge shard rewritten from its live points (issue 34): deleted points leave its files,
and a crash at any step of the swap leaves a shard that opens whole, purged."""

import asyncio
import uuid
from pathlib import Path

from app.scope import Scope
from app.storage import file_scan
from app.storage.vectors import EdgeVectorIndex, VectorFilter, VectorPoint
from app.storage.vectors.base import SHARED_LIVE
from app.storage.vectors.edge_rebuild import build_fresh_copy, staging_path

ERASED = "Bob is training for the Berlin marathon in September"
KEPT = "Alice keeps bees on the roof of her building"


async def shard_with_a_deleted_point(path: Path) -> tuple[EdgeVectorIndex, str]:
    index = EdgeVectorIndex(path, 4)
    await index.open()
    kept, erased = str(uuid.uuid4()), str(uuid.uuid4())
    payload = {"user_id": "bob", SHARED_LIVE: "bob"}  # what searches filter on
    await index.upsert(
        [
            VectorPoint(kept, [0.1, 0.2, 0.3, 0.4], KEPT, {**payload, "content": KEPT}),
            VectorPoint(erased, [0.4, 0.3, 0.2, 0.1], ERASED, {**payload, "content": ERASED}),
        ]
    )
    await index.delete([erased])
    assert not file_scan.search(path, [ERASED]).clean  # deleted, still in the WAL and segment
    return index, kept


async def assert_purged(index: EdgeVectorIndex, path: Path, kept: str) -> None:
    assert file_scan.search(path.parent, [ERASED]).clean
    assert not file_scan.search(path, [KEPT]).clean
    assert await index.count(Scope("bob")) == 1
    assert (await index.retrieve([kept]))[kept].payload["content"] == KEPT
    hits = await index.search_sparse("bees roof", VectorFilter(Scope("bob")), 5)
    assert [h.id for h in hits] == [kept]


async def test_purge_deleted_leaves_no_file_with_a_deleted_point(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    index, kept = await shard_with_a_deleted_point(path)
    (path / "engram-store-id").write_text("store-1")
    try:
        await index.purge_deleted()
        await assert_purged(index, path, kept)
        assert (path / "engram-store-id").read_text() == "store-1"  # Engram's files move along
    finally:
        await index.close()
    reopened = EdgeVectorIndex(path, 4)
    await reopened.open()
    try:
        await assert_purged(reopened, path, kept)
    finally:
        await reopened.close()


async def test_a_crash_before_the_swap_is_finished_at_the_next_open(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    index, kept = await shard_with_a_deleted_point(path)
    config = index._stored_config()
    await index._call(lambda shard: build_fresh_copy(shard, path, config))
    await index.close()  # "crash": the fresh copy is complete, the swap never ran

    reopened = EdgeVectorIndex(path, 4)
    await reopened.open()
    try:
        await assert_purged(reopened, path, kept)
        assert not staging_path(path).exists()
    finally:
        await reopened.close()


async def test_an_incomplete_rebuild_is_thrown_away_and_run_again(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    index, kept = await shard_with_a_deleted_point(path)
    await index.close()
    staging_path(path).mkdir()  # "crash" while the copy was being written
    (staging_path(path) / "half-written").write_bytes(b"\0" * 16)

    reopened = EdgeVectorIndex(path, 4)
    await reopened.open()
    try:
        await assert_purged(reopened, path, kept)
        assert not staging_path(path).exists()
    finally:
        await reopened.close()


async def test_calls_queued_behind_a_purge_run_on_the_fresh_shard(tmp_path: Path) -> None:
    """Found by bench/soak.py: writes that arrived while an erasure rewrote the shard failed
    with "Shard is not initialized" (they were bound to the shard the rewrite closed)."""
    path = tmp_path / "qdrant"
    index, kept = await shard_with_a_deleted_point(path)
    arriving = str(uuid.uuid4())
    point = VectorPoint(
        arriving, [0.2, 0.2, 0.2, 0.2], KEPT, {"user_id": "bob", SHARED_LIVE: "bob"}
    )
    try:
        purge = asyncio.create_task(index.purge_deleted())
        await asyncio.sleep(0)  # the purge is on the shard thread; the calls below queue behind
        await asyncio.gather(purge, index.upsert([point]), index.delete([kept]))
        assert set(await index.retrieve([kept, arriving])) == {arriving}
        assert await index.count(Scope("bob")) == 1
    finally:
        await index.close()
