"""Backup and restore time and archive size, on the embedded default over real HTTP.

Starts Engram (its own FalkorDB server and Qdrant Edge shard in a temporary data dir), writes N
memories with 384-d vectors given in the request (the local model's size; nothing is embedded
during the run), patches 10% of them (revisions), deletes 2% (tombstones), links 5% and puts
20% in two-turn sessions; then times `GET /backup` into a file, starts a second, empty Engram
and times `POST /admin/restore` of that file (which checks counts and every memory's digest,
and puts the saved vectors back), and times `GET /admin/export` for comparison.

Usage: .venv/bin/python bench/backup.py [--memories 10000]
"""

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from bench._engram import keyed_engram, load_average

ROOT = Path(__file__).resolve().parents[1]

USER_KEY, ADMIN_KEY = "bench-user-key-0123456789", "bench-admin-key-0123456789"
ENV = {"EMBEDDING_PROVIDER": "hash", "EMBEDDING_DIMENSIONS": "384", "ENGRAM_WORKERS": "0"}
BATCH = 500
DIMENSION = 384
CLIENTS = 8  # single-memory PATCHes and DELETEs go out in parallel, as from several clients


def populate(base: str, n: int, rng: random.Random) -> dict[str, int]:
    user = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {USER_KEY}"}, timeout=120)
    ids: list[str] = []
    with user:
        for start in range(0, n, BATCH):
            items = [_item(i, rng) for i in range(start, min(start + BATCH, n))]
            response = _with_retry(
                lambda body={"memories": items}: user.post("/memory/batch", json=body)
            )
            ids += response.json()["memory_ids"]
            if len(ids) % (BATCH * 20) == 0 and len(ids) < n:
                _progress(f"wrote {len(ids)} memories")
        _progress(f"wrote {len(ids)} memories")
        patched = rng.sample(ids, n // 10)
        _in_parallel(
            lambda memory_id: user.patch(f"/memory/{memory_id}", json={"importance": 0.9}),
            patched,
        )
        _progress(f"patched {len(patched)}")
        pairs = [(rng.choice(ids), rng.choice(ids)) for _ in range(n // 20)]
        for start in range(0, len(pairs), BATCH):
            body = {
                "associations": [
                    {"memory1_id": a, "memory2_id": b, "type": "RELATES_TO"}
                    for a, b in pairs[start : start + BATCH]
                    if a != b
                ]
            }
            user.post("/associate", json=body).raise_for_status()
        _progress(f"linked {len(pairs)} pairs")
        deleted = rng.sample(sorted(set(ids) - set(patched)), n // 50)
        _in_parallel(lambda memory_id: user.delete(f"/memory/{memory_id}"), deleted)
        _progress(f"deleted {len(deleted)}")
    return {"memories": n, "patched": len(patched), "linked": len(pairs), "deleted": len(deleted)}


def _in_parallel(send: Callable[[str], httpx.Response], memory_ids: Iterable[str]) -> None:
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(lambda memory_id: _with_retry(lambda: send(memory_id)), memory_ids))


def _progress(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)  # noqa: T201


def _with_retry(send: Any, attempts: int = 10) -> httpx.Response:
    """A 503 (a store busy under load) is retried after its Retry-After, as a client would."""
    for _ in range(attempts - 1):
        response = send()
        if response.status_code != 503:
            return response.raise_for_status()
        time.sleep(float(response.headers.get("Retry-After", "1")))
    return send().raise_for_status()


def _item(i: int, rng: random.Random) -> dict[str, Any]:
    item: dict[str, Any] = {
        "content": f"Memory {i}: the user mentioned project {i % 97} and prefers option "
        f"{rng.choice('ABCDEFGH')} for the {rng.choice(['api', 'ui', 'db', 'ops'])} work.",
        "tags": [f"project:{i % 97}", "bench"],
        "importance": round(rng.random(), 2),
        "embedding": [rng.uniform(-1, 1) for _ in range(DIMENSION)],
    }
    if i % 5 == 0 or i % 5 == 1:
        item["source"] = {"session_id": f"s{i // 5}"}
    return item


def time_download(base: str, path: str, out: Path) -> float:
    """Seconds to stream an admin GET (`/backup`, `/admin/export`) into a file."""
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    started = time.perf_counter()
    with httpx.stream("GET", f"{base}{path}", headers=admin, timeout=None) as response:
        response.raise_for_status()
        with out.open("wb") as handle:
            for block in response.iter_bytes(1 << 20):
                handle.write(block)
    return time.perf_counter() - started


def time_restore(base: str, archive: Path) -> tuple[float, dict[str, Any]]:
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    started = time.perf_counter()
    with archive.open("rb") as handle:
        response = httpx.post(f"{base}/admin/restore", content=handle, headers=admin, timeout=None)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    return elapsed, response.json()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        archive, export = Path(tmp) / "backup.tar.gz", Path(tmp) / "export.jsonl"
        with keyed_engram(USER_KEY, ADMIN_KEY, env=ENV) as source:
            written = populate(source.base, args.memories, rng)
            load_before = load_average()
            backup_s = time_download(source.base, "/backup", archive)
            _progress(f"backup took {backup_s:.1f} s")
            export_s = time_download(source.base, "/admin/export", export)
            _progress(f"export took {export_s:.1f} s")
        with keyed_engram(USER_KEY, ADMIN_KEY, env=ENV) as target:
            restore_s, report = time_restore(target.base, archive)
            _progress(f"restore took {restore_s:.1f} s")
        result = {
            **written,
            "live_memories": report["memories"],
            "verified": report["verified"],
            "vectors_restored": report["vectors_restored"],
            "graph_nodes": sum(report["counts"]["nodes"].values()),
            "relationships": sum(report["counts"]["relationships"].values()),
            "backup_s": round(backup_s, 2),
            "backup_bytes": archive.stat().st_size,
            "restore_s": round(restore_s, 2),
            "export_s": round(export_s, 2),
            "export_bytes": export.stat().st_size,
            "load_average": load_before,
        }
    print(json.dumps(result, indent=2))  # noqa: T201


if __name__ == "__main__":
    main()
