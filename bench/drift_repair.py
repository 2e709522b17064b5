"""How long the drift repair takes to bring a lost vector shard back, on the embedded default.

Writes N memories with 384-d vectors given in the request (so they are embedded at once), stops
Engram, deletes ENGRAM_DATA_DIR/qdrant, starts it again with workers and times, from the start:
the first /health answer (drift_detected), the repairing sync done (points re-created with their
keyword vector: recall works again), /health healthy, and every memory embedded again (the hash
embedder: a real model adds its own embedding time per memory, see bench/embed_throughput.py).

Usage: .venv/bin/python bench/drift_repair.py [--memories 5000] [--workers 2]
"""

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench._engram import free_port, load_average, start_engram, stop_engram, wait_ready

ROOT = Path(__file__).resolve().parents[1]

USER_KEY, ADMIN_KEY = "bench-user-key-0123456789", "bench-admin-key-0123456789"
BATCH, DIMENSION = 500, 384


def env(workers: int) -> dict[str, str]:
    return {
        "ENGRAM_API_KEYS": json.dumps({USER_KEY: "bench"}),
        "ENGRAM_ADMIN_KEY": ADMIN_KEY,
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": str(DIMENSION),
        "ENGRAM_WORKERS": str(workers),
        "ENRICHMENT_ENABLED": "false",
        "SYNC_INTERVAL_S": "0",
        "LLM_BASE_URL": "",
    }


def populate(base: str, n: int) -> None:
    rng = random.Random(7)
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {USER_KEY}"}) as user:
        for start in range(0, n, BATCH):
            items = [
                {
                    "content": f"Memory {i}: project {i % 97} prefers option {rng.choice('ABCD')}",
                    "embedding": [rng.uniform(-1, 1) for _ in range(DIMENSION)],
                }
                for i in range(start, min(start + BATCH, n))
            ]
            user.post("/memory/batch", json={"memories": items}, timeout=120).raise_for_status()


def health(base: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    return httpx.get(f"{base}/health", headers=headers, timeout=30).json()


def time_repair(base: str, n: int, started: float) -> dict[str, Any]:
    first = health(base)
    marks: dict[str, Any] = {
        "first_health_s": round(time.monotonic() - started, 2),
        "first_sync_status": first["sync_status"],
        "first_counts": [first["memory_count"], first["embedded_count"], first["vector_count"]],
    }
    # In order: while the sync runs, the memories it has not reached yet still count as embedded.
    wanted = [
        ("repair_done_s", lambda s: s.get("repair", {}).get("state") == "done"),
        ("healthy_s", lambda s: s["status"] == "healthy"),
        ("all_embedded_s", lambda s: s["embedded_count"] == n),
    ]
    for name, reached in wanted:
        while not reached(health(base)):
            time.sleep(0.2)
        marks[name] = round(time.monotonic() - started, 2)
    return marks


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data, port, falkor_port = Path(tmp), free_port(), free_port()
        base = f"http://127.0.0.1:{port}"
        process = start_engram(data, port, falkor_port, env=env(0))
        try:
            wait_ready(base, process=process)
            populate(base, args.memories)
        finally:
            stop_engram(process)
        shutil.rmtree(data / "qdrant")
        started = time.monotonic()
        process = start_engram(data, port, falkor_port, env=env(args.workers))
        try:
            wait_ready(base, timeout=300, process=process)
            marks = time_repair(base, args.memories, started)
        finally:
            stop_engram(process)
    result = {"memories": args.memories, "workers": args.workers, **marks}
    print(json.dumps({**result, "load_average": load_average()}))  # noqa: T201


if __name__ == "__main__":
    main()
