"""The full server topology, where a Qdrant server exists (QDRANT_URL names it): a FalkorDB
server started by the test, two API replicas and separate workers, all as processes. 1,000
writes through both replicas; a worker is killed -9 midway and another started; in the end
every memory has exactly one vector in the shared store and no job gave up.

This machine has no Qdrant server, and every Engram job kind writes to the vector store, so
without one the topology cannot be shared across processes: the queue across worker processes
(kill -9, exactly once) is covered by tests/jobs/test_queue.py, and the refusal of a process
with another vector store by test_store_identity.py.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from qdrant_client import AsyncQdrantClient

from app.storage.falkordb.server import EmbeddedFalkorDB
from tests.conftest import ADMIN_KEY, ALICE_KEY, API_KEYS, auth, free_port

ROOT = Path(__file__).resolve().parents[2]
QDRANT_URL = os.environ.get("QDRANT_URL", "")
WRITES = 1000

pytestmark = pytest.mark.skipif(
    not QDRANT_URL.startswith("http"), reason="needs a Qdrant server: set QDRANT_URL"
)


class Processes:
    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env, self.logs, self.running = env, logs, []

    def start(self, module: str, name: str, **extra: str) -> subprocess.Popen:
        log = (self.logs / f"{name}.log").open("a")
        proc = subprocess.Popen(
            [sys.executable, "-m", module],
            cwd=ROOT,
            env=self.env | extra,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        self.running.append(proc)
        return proc

    def stop_all(self) -> None:
        for proc in self.running:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.running:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()


async def ready(url: str) -> None:
    async with httpx.AsyncClient(base_url=url) as client:
        for _ in range(600):  # bounded
            try:
                if (await client.get("/ready")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.2)
    raise AssertionError(f"{url} never became ready")


async def settled(url: str) -> dict:
    async with httpx.AsyncClient(base_url=url) as client:
        for _ in range(1500):  # bounded: the workers embed the backlog
            health = (await client.get("/health", headers=auth(ADMIN_KEY))).json()
            if health.get("memory_count") == health.get("vector_count") == WRITES:
                return health
            await asyncio.sleep(0.2)
    raise AssertionError(f"the vectors never caught up: {health}")


async def test_replicas_and_workers_share_the_stores_and_lose_nothing(tmp_path: Path):
    falkordb = EmbeddedFalkorDB(data_dir=tmp_path / "falkordb", port=free_port())
    collection = f"topology_{uuid.uuid4().hex[:10]}"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "FALKORDB_URL": await falkordb.start(),
        "FALKORDB_GRAPH": collection,
        "QDRANT_URL": QDRANT_URL,
        "QDRANT_COLLECTION": collection,
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
        "ENGRAM_API_KEYS": json.dumps(API_KEYS),
        "ENGRAM_ADMIN_KEY": ADMIN_KEY,
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "ENRICHMENT_ENABLED": "false",
        "SYNC_INTERVAL_S": "0",
        "ENGRAM_LOG_FORMAT": "text",
        "ENGRAM_ACCESS_LOG": "false",
    }
    processes = Processes(env, tmp_path)
    try:
        urls = []
        for n in range(2):
            port = free_port()
            processes.start(
                "app",
                f"api{n}",
                ENGRAM_PORT=str(port),
                ENGRAM_WORKERS="0",
                ENGRAM_DATA_DIR=str(tmp_path / f"api{n}"),
            )
            urls.append(f"http://127.0.0.1:{port}")
        for url in urls:
            await ready(url)
        workers = [
            processes.start("app.worker", f"worker{n}", ENGRAM_DATA_DIR=str(tmp_path / f"w{n}"))
            for n in range(2)
        ]
        clients = [httpx.AsyncClient(base_url=url, timeout=60) for url in urls]
        ids: list[str] = []
        for start in range(0, WRITES, 20):
            if start == WRITES // 3:
                os.kill(workers[0].pid, signal.SIGKILL)  # its jobs in flight go back to the queue
                processes.start("app.worker", "worker2", ENGRAM_DATA_DIR=str(tmp_path / "w2"))
            answers = await asyncio.gather(
                *(
                    clients[i % 2].post(
                        "/memory", json={"content": f"topology memory {i}"}, headers=auth(ALICE_KEY)
                    )
                    for i in range(start, start + 20)
                )
            )
            assert all(a.status_code == 201 for a in answers), answers[0].text
            ids += [a.json()["memory_id"] for a in answers]
        assert len(set(ids)) == WRITES

        health = await settled(urls[0])
        assert health["sync_status"] in (None, "synced")
        for client in clients:
            dead = await client.get("/admin/dead-letters", headers=auth(ADMIN_KEY))
            assert dead.json()["dead"] == []
        for memory_id in ids[:: WRITES // 50]:  # both replicas read every write, embedded
            for client in clients:
                got = await client.get(f"/memory/{memory_id}", headers=auth(ALICE_KEY))
                assert got.json()["memory"]["embedding_status"] == "done"
        for client in clients:
            await client.aclose()
    finally:
        processes.stop_all()
        await falkordb.stop()
        qdrant = AsyncQdrantClient(url=QDRANT_URL)
        await qdrant.delete_collection(collection)
        await qdrant.close()
