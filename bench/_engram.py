"""Helpers shared by the benchmarks: start Engram on the embedded default, wait, percentiles."""

import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
EXTERNAL_STORE_VARS = ("FALKORDB_URL", "QDRANT_URL", "ENGRAM_API_KEYS")


def free_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50 (median), p95, p99 and mean of millisecond samples, rounded to 0.01."""
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(pick(0.95), 2),
        "p99_ms": round(pick(0.99), 2),
        "mean_ms": round(statistics.fmean(ordered), 2),
    }


def start_engram(
    data_dir: Path,
    port: int,
    falkor_port: int,
    *,
    env: dict[str, str] | None = None,
    stdout: IO | None = None,
    stderr: IO | int | None = None,
    root: Path = ROOT,
) -> subprocess.Popen:
    """Starts `python -m app` from the source tree `root` (this one by default) on the embedded
    default (own FalkorDB server, Qdrant Edge shard)."""
    child_env = {
        **os.environ,
        "ENGRAM_DATA_DIR": str(data_dir),
        "ENGRAM_PORT": str(port),
        "FALKORDB_PORT": str(falkor_port),
        "ENGRAM_LOG_LEVEL": "warning",
    }
    for var in EXTERNAL_STORE_VARS:
        child_env.pop(var, None)
    child_env.update(env or {})
    return subprocess.Popen(
        [sys.executable, "-m", "app"], cwd=root, env=child_env, stdout=stdout, stderr=stderr
    )


def wait_ready(base: str, timeout: float = 60, process: subprocess.Popen | None = None) -> None:
    """Waits until GET /health answers 200; fails early if the process has exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"Engram exited with code {process.returncode} while starting")
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("Engram did not start")


def stop_engram(process: subprocess.Popen, timeout: float = 60) -> None:
    """Terminates the process and waits for it (kills it if it does not stop in time)."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass(frozen=True)
class Server:
    """A running bench server: its base URL, data dir and FalkorDB port."""

    base: str
    data_dir: Path
    falkor_port: int


@contextlib.contextmanager
def keyed_engram(
    user_key: str, admin_key: str, user_id: str = "bench", env: dict[str, str] | None = None
) -> Iterator[Server]:
    """Engram on the embedded default in a temporary data dir, with a fixed user key and an admin
    key, no LLM and no scheduled sync (so that nothing but the bench's own work runs); stopped on
    exit."""
    keyed = {
        "ENGRAM_API_KEYS": json.dumps({user_key: user_id}),
        "ENGRAM_ADMIN_KEY": admin_key,
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "SYNC_INTERVAL_S": "0",
        "LLM_BASE_URL": "",
        **(env or {}),
    }
    with tempfile.TemporaryDirectory() as tmp:
        port, falkor_port = free_port(), free_port()
        process = start_engram(Path(tmp), port, falkor_port, env=keyed)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(base, process=process)
            yield Server(base, Path(tmp), falkor_port)
        finally:
            stop_engram(process)


def load_average() -> float:
    """The 1-minute load average, rounded (the bench machine is shared: report it with figures)."""
    return round(os.getloadavg()[0], 2)


def dead_letters(admin: httpx.Client) -> list[dict[str, Any]]:
    """Dead jobs (GET /admin/dead-letters) as kind, job id, attempts and last error."""
    dead = admin.get("/admin/dead-letters").raise_for_status().json()["dead"]
    return [
        {
            "kind": d.get("kind"),
            "job_id": d.get("job_id"),
            "attempts": d.get("attempts"),
            "error": d.get("error"),
        }
        for d in dead
    ]
