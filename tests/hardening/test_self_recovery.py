"""Issue row 4: FalkorDB killed -9 under load. The service recovers without a restart (the
embedded server is restarted; a server of the operator's own is waited for), no acknowledged
write is lost, a client retrying with Idempotency-Key makes no duplicate, and the log has a
handful of lines about it, not a traceback per attempt."""

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx

from app.storage.falkordb.server import EmbeddedFalkorDB
from tests.conftest import ADMIN_KEY, ALICE_KEY, API_KEYS, auth, free_port

ROOT = Path(__file__).resolve().parents[2]
H = auth(ALICE_KEY)


class Load:
    """Clients storing memories, each retried with its Idempotency-Key until acknowledged."""

    def __init__(self, base_url: str, clients: int = 3) -> None:
        self.base_url, self.acked, self.statuses = base_url, {}, {}
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._client, args=(n,)) for n in range(clients)]

    def __enter__(self) -> "Load":
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=120)

    def _client(self, n: int) -> None:
        with httpx.Client(base_url=self.base_url, timeout=30) as client:
            i = 0
            while not self.stop.is_set():
                key, body = str(uuid.uuid4()), {"content": f"client {n} memory {i}"}
                self.acked[key] = self._store(client, key, body)
                i += 1

    def _store(self, client: httpx.Client, key: str, body: dict) -> str:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                response = client.post("/memory", json=body, headers={**H, "Idempotency-Key": key})
                self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
                if response.status_code == 201:
                    return response.json()["memory_id"]
                assert response.status_code == 503, response.text
            except httpx.TransportError as exc:
                name = type(exc).__name__
                self.statuses[name] = self.statuses.get(name, 0) + 1
            time.sleep(0.2)
        raise AssertionError(f"not acknowledged within 90 s: {self.statuses}")


def start_engram(data_dir: Path, log: Path, **env: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **os.environ,
        "ENGRAM_DATA_DIR": str(data_dir),
        "ENGRAM_PORT": str(port),
        "FALKORDB_PORT": str(free_port()),
        "ENGRAM_API_KEYS": json.dumps(API_KEYS),
        "ENGRAM_ADMIN_KEY": ADMIN_KEY,
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
        "ENGRAM_LOG_FORMAT": "text",
        "ENGRAM_WORKERS": "2",
        "ENRICHMENT_ENABLED": "false",
        "JOBS_SWEEP_S": "1",
        **env,
    }
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            if httpx.get(f"{base}/ready", timeout=1).status_code == 200:
                return proc, base
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError("Engram did not start:\n" + log.read_text()[-3000:])


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def check_nothing_lost_or_doubled(base: str, load: Load) -> None:
    with httpx.Client(base_url=base, timeout=30) as client:
        ids = set(load.acked.values())
        assert len(ids) == len(load.acked)  # every key has its own memory
        missing = [m for m in ids if client.get(f"/memory/{m}", headers=H).status_code != 200]
        assert not missing, f"{len(missing)} acknowledged writes lost"
        count = client.get("/health", headers=H).json()["memory_count"]
        assert count == len(ids), f"{count} memories for {len(ids)} acknowledged keys"


def outage_lines(log: Path, since: str, load: Load) -> list[str]:
    """The log's warnings and errors since `since` (printed with the load's figures, `-s`)."""
    text = log.read_text(errors="replace").split(since, 1)[-1]
    assert "Traceback" not in text, text[-5000:]
    lines = [line for line in text.splitlines() if " ERROR " in line or " WARNING " in line]
    sys.stdout.write(
        f"\n{len(load.acked)} writes acknowledged, answers {load.statuses}; "
        f"{len(lines)} log lines:\n" + "\n".join(lines) + "\n"
    )
    return lines


def test_embedded_falkordb_killed_under_load_is_restarted(tmp_path: Path):
    log = tmp_path / "engram.log"
    proc, base = start_engram(tmp_path / "data", log)
    try:
        with Load(base) as load:
            time.sleep(3)
            marker = "--- kill ---"
            with log.open("a") as out:
                out.write(f"{marker}\n")
            pid = int((tmp_path / "data" / "falkordb" / "redis.pid").read_text())
            os.kill(pid, signal.SIGKILL)
            time.sleep(8)
        assert load.statuses.get(201, 0) > len(load.acked) * 0.9
        check_nothing_lost_or_doubled(base, load)
        assert httpx.get(f"{base}/health").json()["status"] == "healthy"
        lines = outage_lines(log, marker, load)
        assert any("is lost" in line for line in lines), lines
        assert any("is back after" in line for line in lines), lines
        assert len(lines) <= 10, "\n".join(lines)
    finally:
        stop(proc)


def test_a_falkordb_of_ones_own_is_waited_for(tmp_path: Path):
    server = EmbeddedFalkorDB(data_dir=tmp_path / "falkordb", port=free_port())
    url = asyncio.run(server.start())
    log = tmp_path / "engram.log"
    proc, base = start_engram(tmp_path / "data", log, FALKORDB_URL=url)
    try:
        with Load(base) as load:
            time.sleep(2)
            marker = "--- kill ---"
            with log.open("a") as out:
                out.write(f"{marker}\n")
            server.kill()
            time.sleep(4)  # down: requests are answered 503 meanwhile
            assert httpx.get(f"{base}/ready").status_code == 503
            asyncio.run(server.start())
            time.sleep(5)
        assert load.statuses.get(503, 0) > 0
        check_nothing_lost_or_doubled(base, load)
        lines = outage_lines(log, marker, load)
        assert any("waiting for it to return" in line for line in lines), lines
        assert any("is back after" in line for line in lines), lines
        assert len(lines) <= 10, "\n".join(lines)
    finally:
        stop(proc)
        asyncio.run(server.stop())
