"""A shard rewritten from its live points, so that what was deleted leaves its files.

Qdrant Edge keeps a deleted point's payload in its segment until a vacuum rewrites the segment
(`optimize()` does not, below its thresholds) and keeps every update in its WAL files, which are
preallocated and reused, not rewritten. Neither has an API to purge. A rebuild copies the live
points (vectors and payloads as stored) into a fresh shard beside the old one, then swaps the two
directories and deletes the old; 9,000 points of 384 dimensions take about 3 s (docs/operations.md).

The swap survives a crash at any step: the fresh shard is marked complete only after its last
write is flushed, and `finish_interrupted_rebuild` (run before every open) completes a swap that
was under way, or throws away a rebuild that was not complete, asking for a new one.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import qdrant_edge as qe

from app.storage.vectors.base import VectorIndexError
from app.storage.vectors.edge_shard import ensure_payload_indexes

log = logging.getLogger(__name__)

PAGE = 512
COMPLETE = "engram-rebuild-complete"
# Files of the engine in a shard directory; every other file there is Engram's and moves along.
ENGINE_ENTRIES = frozenset({"edge_config.json", "segments", "wal", COMPLETE})


def staging_path(path: Path) -> Path:
    return path.with_name(path.name + ".rebuild")


def retired_path(path: Path) -> Path:
    return path.with_name(path.name + ".erased")


def build_fresh_copy(shard: qe.EdgeShard, path: Path, config: qe.EdgeConfig) -> None:
    """Writes the live points of the shard at `path` into a fresh shard beside it, marked
    complete. Run on the shard thread, so no write comes in between; on failure the old shard
    is untouched (and still open)."""
    shard.flush()
    staging = staging_path(path)
    shutil.rmtree(staging, ignore_errors=True)
    try:
        _fill(staging, shard, config)
        _copy_engram_files(path, staging)
        _mark_complete(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def swap_in(path: Path) -> None:
    """Puts the fresh copy in the old shard's place (the old one closed) and deletes the old."""
    _swap(path)


def finish_interrupted_rebuild(path: Path) -> bool:
    """Completes or discards a rebuild that a crash interrupted; True if the shard at `path`
    still holds deleted points' data (an incomplete rebuild was discarded): rebuild it again."""
    staging, retired = staging_path(path), retired_path(path)
    if (staging / COMPLETE).exists():
        log.warning("finishing the rebuild of Edge shard %s that a crash interrupted", path)
        _swap(path)
    elif (path / COMPLETE).exists() or retired.exists():
        _swap_done(path)
    elif staging.exists():
        log.warning("discarding an incomplete rebuild of Edge shard %s; it runs again", path)
        shutil.rmtree(staging)
        return True
    return False


def _fill(staging: Path, shard: qe.EdgeShard, config: qe.EdgeConfig) -> None:
    fresh = qe.EdgeShard.create(str(staging), config)
    try:
        ensure_payload_indexes(fresh)
        copied = _copy_points(shard, fresh)
        fresh.flush()
        _check_count(fresh, copied, shard)
    finally:
        fresh.close()


def _copy_points(source: qe.EdgeShard, target: qe.EdgeShard) -> int:
    copied, offset = 0, None
    while True:
        request = qe.ScrollRequest(offset=offset, limit=PAGE, with_payload=True, with_vector=True)
        records, offset = source.scroll(request)
        if records:
            points = [qe.Point(id=r.id, vector=r.vector or {}, payload=r.payload) for r in records]
            target.update(qe.UpdateOperation.upsert_points(points))
            copied += len(points)
        if offset is None:
            return copied


def _check_count(fresh: qe.EdgeShard, copied: int, old: qe.EdgeShard) -> None:
    exact = qe.CountRequest(exact=True)
    expected, found = old.count(exact), fresh.count(exact)
    if not expected == found == copied:
        raise VectorIndexError(
            f"Edge shard rebuild copied {copied} points, holds {found}, the old has {expected}"
        )


def _copy_engram_files(path: Path, staging: Path) -> None:
    for entry in path.iterdir():
        if entry.name not in ENGINE_ENTRIES and entry.is_file():
            shutil.copy2(entry, staging / entry.name)


def _mark_complete(staging: Path) -> None:
    (staging / COMPLETE).touch()
    _fsync_dir(staging)


def _swap(path: Path) -> None:
    """Old directory out, fresh one in (each rename is atomic), then the old deleted."""
    staging, retired = staging_path(path), retired_path(path)
    if path.exists():
        shutil.rmtree(retired, ignore_errors=True)  # a leftover of an earlier swap
        os.replace(path, retired)
    os.replace(staging, path)
    _fsync_dir(path.parent)
    _swap_done(path)


def _swap_done(path: Path) -> None:
    shutil.rmtree(retired_path(path), ignore_errors=True)
    (path / COMPLETE).unlink(missing_ok=True)


def _fsync_dir(directory: Path) -> None:
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
