"""Latency of POST /memory and GET /memory/{id} on the embedded default, over real HTTP.

Starts `python -m app` (its own FalkorDB server and Qdrant Edge shard in a temporary data dir),
sends N sequential requests of each kind with one keep-alive connection, and prints p50/p95/p99.
As a baseline, the same graph write and read are timed directly against FalkorDB (no HTTP, no
validation, no vector mirror), so the ratio shows what the service layer costs.

Usage: .venv/bin/python bench/crud_latency.py [--requests 1000]
"""

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import httpx

from app.models import Memory, to_iso, utc_now
from app.scope import Scope
from app.storage.graph.records import new_id
from app.storage.graph.store import GraphStore
from bench._engram import free_port, percentiles, start_engram, stop_engram, wait_ready

ROOT = Path(__file__).resolve().parents[1]


def time_http(base: str, key: str, n: int) -> tuple[dict, dict]:
    headers = {"Authorization": f"Bearer {key}"}
    writes, reads, ids = [], [], []
    with httpx.Client(base_url=base, headers=headers, timeout=10) as client:
        for i in range(50):  # warm-up
            client.post("/memory", json={"content": f"warm-up {i}"})
        for i in range(n):
            body = {
                "content": f"Benchmark memory {i}: the user prefers tea at {i % 24}h",
                "tags": ["bench", f"topic:{i % 10}"],
                "importance": 0.5,
            }
            started = time.perf_counter()
            response = client.post("/memory", json=body)
            writes.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 201, response.text
            ids.append(response.json()["memory_id"])
        for memory_id in ids:
            started = time.perf_counter()
            response = client.get(f"/memory/{memory_id}")
            reads.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200
    return percentiles(writes), percentiles(reads)


async def time_graph_direct(url: str, n: int) -> tuple[dict, dict]:
    graph = GraphStore(url, "bench_direct")
    scope = Scope("bench")
    writes, reads, ids = [], [], []
    try:
        for i in range(n):
            now = to_iso(utc_now())
            memory = Memory(
                id=new_id(),
                user_id="bench",
                content=f"direct {i}",
                timestamp=now,
                created_at=now,
                updated_at=now,
                content_hash=str(i),
            )
            started = time.perf_counter()
            await graph.create_memories([memory], "bench")
            writes.append((time.perf_counter() - started) * 1000)
            ids.append(memory.id)
        for memory_id in ids:
            started = time.perf_counter()
            await graph.get_memory(scope, memory_id)
            reads.append((time.perf_counter() - started) * 1000)
    finally:
        await graph.close()
    return percentiles(writes), percentiles(reads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir, port, falkor_port = Path(tmp), free_port(), free_port()
        process = start_engram(data_dir, port, falkor_port)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(base, process=process)
            key = (data_dir / "api_key").read_text().strip()
            http_write, http_read = time_http(base, key, args.requests)
            direct_write, direct_read = asyncio.run(
                time_graph_direct(f"redis://127.0.0.1:{falkor_port}", args.requests)
            )
        finally:
            stop_engram(process)
    result = {
        "requests": args.requests,
        "POST /memory": http_write,
        "GET /memory/{id}": http_read,
        "baseline: graph write (direct)": direct_write,
        "baseline: graph read (direct)": direct_read,
        "p95 ratio write/baseline": round(http_write["p95_ms"] / direct_write["p95_ms"], 1),
        "p95 ratio read/baseline": round(http_read["p95_ms"] / direct_read["p95_ms"], 1),
    }
    print(json.dumps(result, indent=2))  # noqa: T201
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "crud_latency.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
