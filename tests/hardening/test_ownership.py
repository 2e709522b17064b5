"""Issue 34, item 2: a process owns the embedded stores it starts, and only those. A second
Engram on the same ENGRAM_DATA_DIR refuses at once, naming the running one, and leaves its
FalkorDB alone; a FalkorDB left by an Engram that died is adopted, and then owned (one started
by an Engram killed with SIGKILL dies with it: app/children.py)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.refusals import StartupRefused
from app.runtime import start_runtime
from app.storage.data_dir_lock import LOCKFILE, claim_data_dir, lock_owner
from app.storage.falkordb.server import EmbeddedFalkorDB
from tests.conftest import ALICE_KEY, auth, free_port, running_client, test_settings

ROOT = Path(__file__).resolve().parents[2]
H = auth(ALICE_KEY)


def redis_pid(data_dir: Path) -> int:
    return int((data_dir / "falkordb" / "redis.pid").read_text())


def alive(pid: int) -> bool:
    try:
        return b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("same_falkordb_port", [True, False])
async def test_a_second_engram_refuses_at_once_and_leaves_the_first_alone(
    tmp_path: Path, same_falkordb_port: bool
):
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=free_port(), enrichment_enabled=False
    )
    async with running_client(settings) as client:
        pid = redis_pid(tmp_path)
        second = settings.model_copy(update={"port": free_port()})
        if not same_falkordb_port:  # it used to wait 30 s for a server on its port, then blame
            second = second.model_copy(update={"falkordb_port": free_port()})  # a slow load
        started = time.monotonic()
        with pytest.raises(StartupRefused) as refused:
            await start_runtime(second)
        assert time.monotonic() - started < 2
        message = str(refused.value)
        assert f"ENGRAM_DATA_DIR {tmp_path.resolve()} is in use by another Engram" in message
        assert f"pid {os.getpid()}, ENGRAM_PORT {settings.port}" in message
        assert "own ENGRAM_DATA_DIR" in refused.value.fix

        assert alive(pid) and redis_pid(tmp_path) == pid  # never stopped by the second
        body = {"content": "still mine"}
        assert (await client.post("/memory", json=body, headers=H)).status_code == 201
        assert (await client.get("/health")).json()["falkordb"] == "connected"
    assert not alive(pid)  # the owner stops what it started


async def test_the_lock_is_free_once_its_owner_stops(tmp_path: Path):
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=free_port(), enrichment_enabled=False
    )
    async with running_client(settings):
        assert lock_owner(tmp_path / LOCKFILE)["pid"] == os.getpid()
    claim_data_dir(tmp_path, port=1, now="now").release()  # free again
    async with running_client(settings) as client:  # and the next run owns it
        assert (await client.get("/ready")).status_code == 200


async def test_a_falkordb_left_by_a_dead_engram_is_adopted_and_then_owned(tmp_path: Path):
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=free_port(), enrichment_enabled=False
    )
    left = EmbeddedFalkorDB(data_dir=tmp_path / "falkordb", port=settings.falkordb_port)
    await left.start()  # as if the Engram that started it had been killed: no lock held
    pid = redis_pid(tmp_path)
    async with running_client(settings) as client:
        assert (await client.get("/ready")).status_code == 200
        assert redis_pid(tmp_path) == pid  # adopted, not replaced
    assert not alive(pid)  # adopted, so owned: stopped with its new owner


def engram_env(data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ENGRAM_DATA_DIR": str(data_dir),
        "ENGRAM_PORT": str(free_port()),
        "FALKORDB_PORT": str(free_port()),
        "ENGRAM_API_KEYS": json.dumps({ALICE_KEY: "alice"}),
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
        "ENGRAM_WORKERS": "1",
        "ENRICHMENT_ENABLED": "false",
        "SYNC_INTERVAL_S": "0",
        "ENGRAM_LOG_LEVEL": "info",
    }


def start_engram(env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{env['ENGRAM_PORT']}/ready"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise AssertionError("Engram did not start:\n" + log.read_text()[-3000:])


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_two_processes_on_one_data_dir(tmp_path: Path):
    data, first_log = tmp_path / "data", tmp_path / "first.log"
    env = engram_env(data)
    first = start_engram(env, first_log)
    try:
        pid = redis_pid(data)
        second_env = {**env, "ENGRAM_PORT": str(free_port())}  # same FALKORDB_PORT, as `make run`
        second = subprocess.run(
            [sys.executable, "-m", "app"],
            cwd=ROOT,
            env=second_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode != 0
        said = second.stdout + second.stderr
        assert f"in use by another Engram: pid {first.pid}, ENGRAM_PORT {env['ENGRAM_PORT']}" in (
            said
        ), said[-3000:]
        assert "reusing embedded FalkorDB" not in said

        assert alive(pid) and redis_pid(data) == pid
        health = httpx.get(f"http://127.0.0.1:{env['ENGRAM_PORT']}/health", timeout=5)
        assert health.json()["falkordb"] == "connected"
        assert "is lost" not in first_log.read_text()

        first.kill()  # a crash: the lock goes with the process, and so does its FalkorDB
        first.wait(timeout=10)
        third = start_engram({**env, "ENGRAM_PORT": str(free_port())}, tmp_path / "third.log")
        assert not alive(pid)  # it died with the first (adopting one is tested above)
        started = redis_pid(data)
        assert started != pid and alive(started)
        stop(third)
        assert not alive(started)  # and owned: stopped with it
    finally:
        stop(first)
