"""Exact against HNSW search on a stopped store's Edge shard: the time of one search and how many
of the exact results the graph finds (what `engram index-vectors` changes, docs/operations.md).

Opens the shard of a stopped data directory (`DIR/qdrant`, e.g. one `bench/scale.py
--keep-data DIR` built) through Engram's own loader, draws --queries stored points of the
agent-less scope's users, and uses each one's dense vector plus Gaussian noise (sigma --noise a
dimension, normalised) as a query. Each query runs twice with the user's filter, as recall
sends it: with `exact=True` (the reference), and as recall runs it (through the HNSW graph once
one is built, at each --ef). Reports the p50/p95 of each, and overlap@10 / overlap@--limit: the
share of the exact top results the other search returned. With --build the index is built
first (what POST /admin/vectors/index runs), timed; without it, the shard is measured as it is.
--user-graphs-only first recreates every keyword payload index but the two user fields with
`enable_hnsw=False` (no HNSW graph per tag, type, role… value), the variant measured in
bench/results/2026-12-02-growth.md; give it a store that was never indexed (a fresh
`bench/scale.py --keep-data DIR` store), since a built segment is not built again.

Usage: .venv/bin/python bench/vector_index.py DIR [--build [--user-graphs-only]] [--queries 200]
       [--limit 60] [--ef 100,200] [--noise 0.03]
"""

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe

from app.storage.vectors.base import DENSE, SHARED_LIVE
from app.storage.vectors.edge_index import build_index_sync
from app.storage.vectors.edge_load import load_shard

SAMPLE = 4000
USER_FIELDS = {"user_id", SHARED_LIVE}


def user_graphs_only(shard: qe.EdgeShard) -> None:
    """Every keyword index but the user fields recreated without its HNSW payload graphs."""
    for field, info in shard.info().payload_schema.items():
        if info.data_type == qe.PayloadSchemaType.Keyword and field not in USER_FIELDS:
            shard.update(qe.UpdateOperation.delete_field_index(field))
            params = qe.KeywordIndexParams(enable_hnsw=False)
            shard.update(qe.UpdateOperation.create_field_index(field, params))


def queries(shard: qe.EdgeShard, count: int, noise: float, seed: int) -> list[tuple[str, list]]:
    """(user, vector) pairs near stored points of the first SAMPLE points in id order."""
    request = qe.ScrollRequest(limit=SAMPLE, with_payload=True, with_vector=True)
    records = [r for r in shard.scroll(request)[0] if (r.payload or {}).get(SHARED_LIVE)]
    rng, noisy = random.Random(seed), np.random.default_rng(seed)
    chosen = []
    for record in rng.sample(records, min(count, len(records))):
        vector = np.asarray(record.vector[DENSE], dtype=np.float32)
        vector = vector + noisy.normal(0, noise, vector.shape).astype(np.float32)
        chosen.append(
            (str(record.payload[SHARED_LIVE]), (vector / np.linalg.norm(vector)).tolist())
        )
    return chosen


def search(shard: qe.EdgeShard, asked: list, limit: int, params: Any) -> tuple[list, list]:
    """The ids found for each query, and each search's milliseconds."""
    found, times = [], []
    for user, vector in asked:
        condition = qe.FieldCondition(key=SHARED_LIVE, match=qe.MatchValue(user))
        request = qe.QueryRequest(
            limit=limit,
            filter=qe.Filter(must=[condition]),
            with_payload=False,
            query=qe.Query.Nearest(vector, using=DENSE),
            params=params,
        )
        started = time.perf_counter()
        hits = shard.query(request)
        times.append((time.perf_counter() - started) * 1000)
        found.append([str(h.id) for h in hits])
    return found, times


def timing(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return {"p50_ms": round(statistics.median(ordered), 2), "p95_ms": round(p95, 2)}


def overlap(exact: list[list[str]], other: list[list[str]], top: int) -> float:
    pairs = zip(exact, other, strict=True)
    shares = [len(set(a[:top]) & set(b[:top])) / max(len(a[:top]), 1) for a, b in pairs]
    return round(statistics.mean(shares), 4)


def run(args: argparse.Namespace) -> dict[str, Any]:
    path = args.data_dir / "qdrant"
    shard, _ = load_shard(path, args.dimension)
    try:
        if args.user_graphs_only:
            user_graphs_only(shard)
        build = asdict(build_index_sync(path, shard)) if args.build else None
        return {"build": build} | measure(shard, args)
    finally:
        shard.close()


def measure(shard: qe.EdgeShard, args: argparse.Namespace) -> dict[str, Any]:
    asked = queries(shard, args.queries, args.noise, args.seed)
    exact, exact_times = search(shard, asked, args.limit, qe.SearchParams(exact=True))
    result: dict[str, Any] = {"points": shard.info().points_count, "queries": len(asked)}
    result["exact"] = timing(exact_times)
    for ef in args.ef:
        found, times = search(shard, asked, args.limit, qe.SearchParams(hnsw_ef=ef))
        result[f"as recall searches, ef={ef}"] = timing(times) | {
            "overlap@10": overlap(exact, found, 10),
            f"overlap@{args.limit}": overlap(exact, found, args.limit),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path, help="a stopped Engram data directory")
    parser.add_argument("--build", action="store_true", help="build the HNSW index first")
    parser.add_argument(
        "--user-graphs-only", action="store_true", help="no payload graphs but the user fields'"
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--limit", type=int, default=60, help="results per search")
    parser.add_argument("--ef", type=lambda s: [int(x) for x in s.split(",")], default=[100])
    parser.add_argument("--noise", type=float, default=0.03, help="sigma per dimension")
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--seed", type=int, default=1)
    sys.stdout.write(json.dumps(run(parser.parse_args()), indent=2) + "\n")


if __name__ == "__main__":
    main()
