"""How long an erasure's rewrite of the Edge shard takes (EdgeVectorIndex.purge_deleted).

Fills a shard with N points as Engram writes them (384-d dense and window vectors, the BM25
keyword vector, a payload with ~200 bytes of text), deletes a tenth, then times the rewrite from
the live points and checks no file of the shard still holds a deleted point's text.

Usage: .venv/bin/python bench/edge_rebuild.py [--points 10000] [--dimension 384]
"""

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

from app.storage import file_scan
from app.storage.vectors import EdgeVectorIndex, VectorPoint
from app.storage.vectors.base import SHARED_LIVE


def size_mb(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


def point(index: int, dimension: int) -> VectorPoint:
    text = f"Memory {index:06d} of the bench: " + "lorem ipsum dolor sit amet " * 6
    payload = {"user_id": "bench", SHARED_LIVE: "bench", "content": text}
    dense = [random.random() for _ in range(dimension)]
    return VectorPoint(str(uuid.uuid4()), dense, text, payload)


async def run(points: int, dimension: int, root: Path) -> dict:
    path = root / "qdrant"
    index = EdgeVectorIndex(path, dimension)
    await index.open()
    written = [point(i, dimension) for i in range(points)]
    await index.upsert(written)
    await index.set_windows({p.id: p.dense or [] for p in written})
    deleted = written[::10]
    await index.delete([p.id for p in deleted])
    before = size_mb(path)
    started = time.perf_counter()
    await index.purge_deleted()
    seconds = time.perf_counter() - started
    live = await index.count()
    await index.close()
    check = file_scan.search(path, [p.text for p in deleted[:500]])
    return {
        "points": points,
        "live_after": live,
        "dimension": dimension,
        "rewrite_s": round(seconds, 2),
        "shard_mb_before": before,
        "shard_mb_after": size_mb(path),
        "deleted_texts_found": len(check.found_in),
        "search_s": round(check.seconds, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--dimension", type=int, default=384)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="edge-rebuild-"))
    try:
        result = asyncio.run(run(args.points, args.dimension, root))
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
