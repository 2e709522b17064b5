"""The `engram` command's skeleton: global options, exit codes, status, serve."""

import json
import os
import subprocess
import sys
import time

import httpx

from app.cli.errors import AUTH_REFUSED, UNREACHABLE, USAGE
from tests.cli.conftest import LiveServer
from tests.conftest import ADMIN_KEY, ALICE_KEY, free_port


def test_status_shows_stores_counts_and_jobs(live_server: LiveServer) -> None:
    result = live_server.run("status")
    assert result.exit_code == 0, result.output
    assert "falkordb" in result.output and "connected" in result.output
    assert "memories" in result.output and "Jobs" in result.output


def test_status_json_is_one_document_with_admin_counts(live_server: LiveServer) -> None:
    created = httpx.post(
        f"{live_server.url}/memory",
        json={"content": "The status test memory"},
        headers={"Authorization": f"Bearer {ALICE_KEY}"},
    )
    assert created.status_code == 201, created.text
    result = live_server.run("--json", "status")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["health"]["status"] == "healthy"
    assert document["health"]["memory_count"] >= 1
    assert "jobs" in document["jobs"]


def test_status_without_a_key_shows_health_only(live_server: LiveServer) -> None:
    result = live_server.run("--json", "status", admin_key=None)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert "memory_count" not in document["health"] and document["jobs"] is None


def test_a_wrong_key_exits_4(live_server: LiveServer) -> None:
    result = live_server.run("status", admin_key="not-a-key")
    assert result.exit_code == AUTH_REFUSED
    assert "Invalid API key" in result.output


def test_an_unreachable_server_exits_3(live_server: LiveServer) -> None:
    result = live_server.run("--url", f"http://127.0.0.1:{free_port()}", "status")
    assert result.exit_code == UNREACHABLE
    assert "Cannot reach Engram" in result.output


def test_a_usage_error_exits_2(live_server: LiveServer) -> None:
    result = live_server.run("status", "--no-such-option")
    assert result.exit_code == USAGE


def test_engram_serve_starts_the_server(tmp_path, falkordb_url: str) -> None:
    """`engram serve` replaces itself with `python -m app`, which answers on the given port."""
    port = free_port()
    env = {
        **os.environ,
        "ENGRAM_ADMIN_KEY": ADMIN_KEY,
        "FALKORDB_URL": falkordb_url,
        "FALKORDB_GRAPH": f"serve_{port}",
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
        "ENGRAM_WORKERS": "0",
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
    }
    args = ["-m", "app.cli", "serve", "--port", str(port), "--data-dir", str(tmp_path)]
    process = subprocess.Popen([sys.executable, *args], env=env, cwd=os.getcwd())
    try:
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, "engram serve exited"
            assert time.monotonic() < deadline, "engram serve did not answer"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
    finally:
        process.terminate()
        process.wait(timeout=60)


def test_engram_worker_is_python_m_app_worker(tmp_path) -> None:
    """`engram worker` replaces itself with the worker, which refuses the embedded default."""
    env = {k: v for k, v in os.environ.items() if k not in ("FALKORDB_URL", "QDRANT_URL")}
    env["ENGRAM_DATA_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "worker"],
        env=env,
        cwd=os.getcwd(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "A separate worker needs shared servers" in done.stderr
