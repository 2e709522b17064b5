"""Does a Qdrant Edge search let other Python threads run? (It did not, in qdrant-edge-py 0.9.)

Fills a temporary Edge shard with random unit vectors (float16, cosine, like Engram's), then
runs a pure-Python loop for a few seconds while another thread runs exact searches back to back,
and reports how long the loop stood still: its longest pause and the share of the time it was
paused (gaps of over 0.2 ms between two iterations). A search that released the GIL would leave
the loop running on the other core (pauses near 0); one that holds it pauses the loop for about a
search's length, every search.

Usage: .venv/bin/python bench/edge_gil.py [--points 50000] [--seconds 3]
"""

import argparse
import statistics
import sys
import tempfile
import threading
import time

import numpy as np
import qdrant_edge as qe

DIMENSION = 384
PAUSE_S = 0.0002
CHUNK = 1000


def filled_shard(directory: str, points: int) -> qe.EdgeShard:
    dense = qe.EdgeVectorParams(
        size=DIMENSION, distance=qe.Distance.Cosine, datatype=qe.VectorStorageDatatype.Float16
    )
    shard = qe.EdgeShard.create(directory, qe.EdgeConfig(vectors={"dense": dense}))
    vectors = np.random.default_rng(7).standard_normal((points, DIMENSION)).astype(np.float32)
    for start in range(0, points, CHUNK):
        batch = [
            qe.Point(start + i, {"dense": vector.tolist()}, {})
            for i, vector in enumerate(vectors[start : start + CHUNK])
        ]
        shard.update(qe.UpdateOperation.upsert_points(batch))
    return shard


def pauses(seconds: float) -> list[float]:
    """The gaps (s) longer than PAUSE_S between iterations of a Python loop over `seconds`."""
    found, last = [], time.perf_counter()
    end = last + seconds
    while last < end:
        now = time.perf_counter()
        if now - last > PAUSE_S:
            found.append(now - last)
        last = now
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=50_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        shard = filled_shard(directory, args.points)
        query = np.random.default_rng(8).standard_normal(DIMENSION).tolist()
        request = qe.QueryRequest(
            limit=50, with_payload=False, query=qe.Query.Nearest(query, using="dense")
        )
        durations: list[float] = []
        stop = threading.Event()

        def search_until_stopped() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                shard.query(request)
                durations.append(time.perf_counter() - started)

        idle = pauses(args.seconds)
        searcher = threading.Thread(target=search_until_stopped)
        searcher.start()
        busy = pauses(args.seconds)
        stop.set()
        searcher.join()
        shard.close()
    lines = [
        f"{len(durations)} searches over {args.points:,} points, "
        f"median {statistics.median(durations) * 1000:.2f} ms"
    ]
    for name, found in (("alone", idle), ("beside the searches", busy)):
        longest = max(found, default=0.0) * 1000
        share = sum(found) / args.seconds
        lines.append(f"python loop {name}: paused {share:.0%}, longest pause {longest:.1f} ms")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
