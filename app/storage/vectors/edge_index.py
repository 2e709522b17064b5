"""Building the Edge shard's approximate (HNSW) index: the operator's call, never the service's.

Edge has no background optimizer: until `optimize()` runs, every search is exact over the
caller's points, which costs time in proportion to them (bench/results/2026-12-02-growth.md:
the two vector steps take 6 ms at 100k memories and 39 ms at 1M). `optimize()` turns the shard's
segments past Qdrant's indexing threshold (10 MB of vectors) into indexed ones; points written
afterwards go to a fresh, plain segment and are searched exactly beside the graph, as in a Qdrant
server between two optimizer runs. A user whose points are fewer than the full-scan threshold
(about 13,000 at 384 float16 dimensions) is still searched exactly, through the payload index.

The build holds the GIL for its whole length (minutes at 1M points), so it is run by the operator
on a stopped data directory (`engram index-vectors --data-dir`), or on a live server that may
stop answering meanwhile (docs/operations.md). Runs on the shard thread.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import qdrant_edge as qe

from app.storage.vectors.base import DENSE
from app.storage.vectors.capabilities import IndexBuild

SEGMENTS = "segments"
SEGMENT_FILE = "segment.json"


def build_index_sync(path: Path, shard: qe.EdgeShard) -> IndexBuild:
    """Runs Edge's optimizer and reports what the shard's segments are now."""
    started = time.perf_counter()
    shard.optimize()
    seconds = time.perf_counter() - started
    info = shard.info()
    kinds = segment_index_kinds(path)
    return IndexBuild(
        engine="edge",
        built=True,
        seconds=round(seconds, 3),
        points=info.points_count,
        segments=len(kinds),
        indexed_segments=sum(kind == "hnsw" for kind in kinds),
    )


def segment_index_kinds(path: Path) -> list[str]:
    """Each segment's index type for the dense vector ("plain" or "hnsw"), as its file says."""
    kinds = []
    for segment_file in sorted((path / SEGMENTS).glob(f"*/{SEGMENT_FILE}")):
        config = json.loads(segment_file.read_text()).get("config", {})
        dense = config.get("vector_data", {}).get(DENSE, {})
        kinds.append(str(dense.get("index", {}).get("type", "plain")))
    return kinds
