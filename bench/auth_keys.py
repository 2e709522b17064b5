"""What authenticating a request costs, per kind of key, with the real graph behind runtime keys.

Starts a FalkorDB server (the embedded default's, in a temporary directory), applies the
migrations, makes one runtime key, and times `Authenticator.authenticate` in-process for: a
configured key (ENGRAM_API_KEYS), a runtime key already seen (the cache), the same wrong key
again (the cache of unknown digests), and a new wrong key each time (one indexed graph look-up).
It also counts the graph queries FalkorDB served during each run (INFO commandstats), which
shows that a key already seen costs none.

Usage: .venv/bin/python bench/auth_keys.py [--calls 20000] [--lookups 2000]
"""

import argparse
import asyncio
import json
import secrets
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from app.auth import build_keyring
from app.auth.runtime_keys import Authenticator, KeyPolicy, RuntimeKeys
from app.storage.falkordb.server import EmbeddedFalkorDB
from app.storage.graph.schema import migrate
from app.storage.graph.store import GraphStore
from bench._engram import free_port, percentiles

ROOT = Path(__file__).resolve().parents[1]

CONFIGURED = {f"configured-key-{n}-0123456789abcdef": f"user{n}" for n in range(3)}


async def graph_queries(graph: GraphStore) -> int:
    stats = await graph._db.connection.info("commandstats")
    return sum(
        int(value["calls"]) for name, value in stats.items() if name.startswith("cmdstat_graph.")
    )


async def timed(
    graph: GraphStore, calls: int, make: Callable[[], str], check: Callable[[str], Awaitable]
) -> dict:
    before = await graph_queries(graph)
    samples = []
    for _ in range(calls):
        key = make()
        started = time.perf_counter()
        await check(key)
        samples.append((time.perf_counter() - started) * 1_000_000)
    figures = {name.replace("_ms", "_us"): value for name, value in percentiles(samples).items()}
    return {**figures, "calls": calls, "graph_queries": await graph_queries(graph) - before}


async def run(calls: int, lookups: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedFalkorDB(data_dir=Path(tmp), port=free_port())
        graph = GraphStore(await server.start(), "bench_auth")
        try:
            await migrate(graph)
            runtime = RuntimeKeys(graph, KeyPolicy(refresh_s=2, cache_s=3600, max_per_user=100))
            await runtime.start()
            ring = build_keyring(CONFIGURED, "admin-key-0123456789abcdef", None, "local")
            authenticator = Authenticator(ring, runtime)
            _, made = await runtime.issue("alice", None, None, "bench")
            assert await authenticator.authenticate(made) is not None  # seen once: cached
            wrong = "engram_" + secrets.token_urlsafe(32)
            await authenticator.authenticate(wrong)
            check = authenticator.authenticate
            configured = next(iter(CONFIGURED))
            return {
                "configured key": await timed(graph, calls, lambda: configured, check),
                "runtime key, seen": await timed(graph, calls, lambda: made, check),
                "wrong key, repeated": await timed(graph, calls, lambda: wrong, check),
                "wrong key, new each time": await timed(
                    graph, lookups, lambda: "engram_" + secrets.token_urlsafe(32), check
                ),
            }
        finally:
            await graph.close()
            await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--lookups", type=int, default=2_000)
    args = parser.parse_args()
    sys.stdout.write(json.dumps(asyncio.run(run(args.calls, args.lookups)), indent=2) + "\n")


if __name__ == "__main__":
    main()
