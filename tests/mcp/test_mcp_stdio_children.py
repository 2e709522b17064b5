"""`engram mcp` killed with SIGKILL (as desktop clients quit it) takes its embedded FalkorDB
with it (issue 41: the server stayed behind with no parent)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ALICE_KEY, API_KEYS, free_port
from tests.processes import alive, parent_of

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 120.0  # bounds, not timings: each loop ends as soon as its condition holds


def stdio_env(data_dir: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "ENGRAM_DATA_DIR": str(data_dir),
        "FALKORDB_PORT": str(free_port()),
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
        "ENGRAM_WORKERS": "0",
        "SYNC_INTERVAL_S": "0",
        "ENGRAM_API_KEYS": json.dumps(API_KEYS),
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "ENGRAM_API_KEY": ALICE_KEY,
        "PYTHONPATH": str(ROOT),
    }


def server_pid(pidfile: Path, parent: subprocess.Popen, errors: Path) -> int:
    """The redis-server the MCP process started, once it is up."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        assert parent.poll() is None, errors.read_text()[-3000:]
        try:
            pid = int(pidfile.read_text().strip())
        except (FileNotFoundError, ValueError):
            pid = 0
        if pid and alive(pid) and parent_of(pid) == parent.pid:
            return pid
        time.sleep(0.1)
    raise AssertionError("no embedded FalkorDB came up:\n" + errors.read_text()[-3000:])


def test_sigkill_of_engram_mcp_ends_its_falkordb(tmp_path: Path):
    errors = tmp_path / "stderr"
    with errors.open("wb") as err:
        mcp = subprocess.Popen(
            [sys.executable, "-m", "app.mcp_stdio"],
            cwd=ROOT,
            env=stdio_env(tmp_path / "data"),
            stdin=subprocess.PIPE,  # held open: the server waits for a client
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    redis = 0
    try:
        redis = server_pid(tmp_path / "data" / "falkordb" / "redis.pid", mcp, errors)
        os.kill(mcp.pid, signal.SIGKILL)
        mcp.wait(timeout=30)
        deadline = time.monotonic() + WAIT_S
        while alive(redis) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(redis), "the embedded FalkorDB outlived the engram mcp that started it"
    finally:
        if mcp.poll() is None:
            mcp.kill()
            mcp.wait()
        if redis and alive(redis):  # what this test checks failed: leave nothing behind anyway
            os.kill(redis, signal.SIGKILL)
        assert mcp.stdin is not None
        mcp.stdin.close()
