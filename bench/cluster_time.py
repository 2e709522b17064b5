"""How long clustering, and a decay pass, take on N recent memories of one user.

Starts the stores in-process on the embedded default in a temporary directory (own FalkorDB
server, a Qdrant Edge shard; the hash embedder, so no model is loaded), writes N memories with
given 384-d vectors (TOPICS topics; each memory is its topic's direction plus noise, so topics
form clusters at cosine ≥ 0.75), then times `run_clustering` twice (the first run writes one
summary per cluster, the second finds nothing to change) and one forgetting pass (`run_pass`:
every memory rescored, its score written to the graph and its payload; nothing is old enough
to archive).

Usage: .venv/bin/python bench/cluster_time.py [--memories 10000] [--topics 1000] [--seed 5]
"""

import argparse
import asyncio
import math
import random
import sys
import tempfile
import time
from pathlib import Path

from app.config import Settings
from app.lifecycle.cluster import ClusterConfig, run_clustering
from app.lifecycle.decay import LifecycleConfig, run_pass
from app.memories import service
from app.memories.schemas import MemoryCreate
from app.models import utc_now
from app.runtime import start_runtime
from app.scope import Scope
from bench._engram import free_port

DIMENSION = 384
BATCH = 500


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def vectors(n: int, topics: int, rng: random.Random) -> list[tuple[int, list[float]]]:
    centres = [unit([rng.gauss(0, 1) for _ in range(DIMENSION)]) for _ in range(topics)]
    out = []
    for i in range(n):
        topic = i % topics
        noise = [rng.gauss(0, 0.025) for _ in range(DIMENSION)]
        out.append((topic, unit([c + e for c, e in zip(centres[topic], noise, strict=True)])))
    return out


async def main(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as data_dir:
        settings = Settings(
            data_dir=Path(data_dir),
            falkordb_port=free_port(),
            embedding_provider="hash",
            embedding_dimensions=DIMENSION,
            workers=0,
            sync_interval_s=0,
            enrichment_enabled=False,
            generate_local_key=False,
            api_keys={"bench-key-0123456789": "bench"},
        )
        runtime = await start_runtime(settings, with_keyring=False)
        try:
            scope = Scope("bench")
            made = vectors(args.memories, args.topics, rng)
            started = time.perf_counter()
            for start in range(0, len(made), BATCH):
                items = [
                    MemoryCreate(content=f"Topic {t} note {start + i}", type="Fact", embedding=v)
                    for i, (t, v) in enumerate(made[start : start + BATCH])
                ]
                await service.store_batch(
                    stores=runtime.stores, scope=scope, actor="bench", items=items
                )
            written = time.perf_counter() - started
            config = ClusterConfig(min_size=3)
            started = time.perf_counter()
            first = await run_clustering(runtime, config, utc_now())
            first_s = time.perf_counter() - started
            started = time.perf_counter()
            second = await run_clustering(runtime, config, utc_now())
            second_s = time.perf_counter() - started
            started = time.perf_counter()
            swept = await run_pass(runtime.stores, LifecycleConfig(), utc_now(), forget=True)
            pass_s = time.perf_counter() - started
        finally:
            await runtime.stop()
    lines = [
        f"memories: {args.memories}, topics: {args.topics} (written in {written:.1f} s)",
        f"first run: {first_s:.1f} s, {first['clusters']} clusters, {first['created']} created",
        f"second run: {second_s:.1f} s, {second['unchanged']} unchanged, "
        f"{second['created']} created, {second['updated']} updated",
        f"forgetting pass: {pass_s:.1f} s, {swept['processed']} scored, "
        f"{swept['scores_updated']} scores written, {swept['archived']} archived",
    ]
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--topics", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=5)
    asyncio.run(main(parser.parse_args()))
