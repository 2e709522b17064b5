"""`python -m app.worker --healthcheck` follows the worker's heartbeat: healthy while the worker
runs and reaches its queue, unhealthy once it is killed or stopped."""

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def worker_env(falkordb_url: str, data_dir: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "FALKORDB_URL": falkordb_url,
        "FALKORDB_GRAPH": f"test_{uuid.uuid4().hex[:12]}",  # a fresh deployment of its own
        "QDRANT_URL": ":memory:",
        "ENGRAM_DATA_DIR": str(data_dir),
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
        "ENGRAM_WORKER_HEARTBEAT_S": "0.5",
        "SYNC_INTERVAL_S": "0",
        "ENGRAM_LOG_FORMAT": "text",
    }


async def healthcheck(env: dict[str, str]) -> int:
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "app.worker", "--healthcheck"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=60,
    )
    return done.returncode


async def wait_for(env: dict[str, str], code: int, worker: subprocess.Popen) -> None:
    for _ in range(120):  # bounded
        if await healthcheck(env) == code:
            return
        if code == 0 and worker.poll() is not None:
            break
        await asyncio.sleep(0.5)
    log = Path(env["ENGRAM_DATA_DIR"]).with_suffix(".log")
    raise AssertionError(f"the health check never answered {code}: {log.read_text()[-3000:]}")


def start_worker(env: dict[str, str]) -> subprocess.Popen:
    log = Path(env["ENGRAM_DATA_DIR"]).with_suffix(".log").open("a")
    return subprocess.Popen(
        [sys.executable, "-m", "app.worker"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
    )


async def test_the_health_check_follows_the_heartbeat(falkordb_url: str, tmp_path: Path):
    env = worker_env(falkordb_url, tmp_path / "worker")
    assert await healthcheck(env) == 1  # no worker yet
    worker = start_worker(env)
    try:
        await wait_for(env, 0, worker)
        os.kill(worker.pid, signal.SIGKILL)  # no chance to clean up: the beat goes stale
        worker.wait(timeout=30)
        await wait_for(env, 1, worker)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=30)

    env["ENGRAM_ADOPT_VECTOR_STORE"] = "true"  # its in-memory vector store is a new one
    worker = start_worker(env)
    try:
        await wait_for(env, 0, worker)
        worker.send_signal(signal.SIGTERM)  # a clean stop removes the beat at once
        assert worker.wait(timeout=60) == 0
        assert await healthcheck(env) == 1
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=30)
