"""Request ids (X-Request-Id in and out), the access log, and JSON or plain log lines."""

import json
import logging
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.logs import REQUEST_ID, JsonFormatter, RequestIdFilter
from tests.conftest import ALICE_KEY, auth

ROOT = Path(__file__).resolve().parents[2]


async def test_a_request_id_is_kept_or_made(app_client: httpx.AsyncClient):
    given = await app_client.get("/health", headers={"X-Request-Id": "trace-42.a"})
    assert given.headers["x-request-id"] == "trace-42.a"
    made = await app_client.get("/health")
    assert len(made.headers["x-request-id"]) == 32
    unsafe = await app_client.get("/health", headers={"X-Request-Id": "x" * 500})
    assert unsafe.headers["x-request-id"] != "x" * 500
    error = await app_client.get("/memory/nope", headers=auth(ALICE_KEY) | {"X-Request-Id": "e1"})
    assert error.status_code == 400 and error.headers["x-request-id"] == "e1"


async def test_each_request_has_an_access_log_line_with_its_id(
    app_client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
):
    with caplog.at_level(logging.INFO, logger="engram.access"):
        await app_client.get("/memory/nope", headers=auth(ALICE_KEY) | {"X-Request-Id": "req-7"})
    [line] = [r for r in caplog.records if r.name == "engram.access"]
    assert (line.method, line.route, line.status) == ("GET", "/memory/{memory_id}", 400)
    assert line.path == "/memory/nope" and line.duration_ms >= 0
    RequestIdFilter().filter(line)
    entry = json.loads(JsonFormatter().format(line))
    assert entry["logger"] == "engram.access"
    assert entry["status"] == 400 and entry["route"] == "/memory/{memory_id}"
    assert entry["message"].startswith("GET /memory/nope 400")


def test_log_lines_carry_the_current_request_id():
    record = logging.LogRecord("app.x", logging.WARNING, __file__, 1, "hello %s", ("you",), None)
    token = REQUEST_ID.set("abc")
    try:
        RequestIdFilter().filter(record)
    finally:
        REQUEST_ID.reset(token)
    entry = json.loads(JsonFormatter().format(record))
    assert entry == {**entry, "level": "WARNING", "message": "hello you", "request_id": "abc"}


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_the_format_is_switched_by_an_environment_variable(fmt: str):
    script = (
        "import logging; from app.logs import configure_logging; "
        "from app.config import Settings; s = Settings(); "
        "configure_logging(s.log_level, s.log_format); logging.getLogger('app').warning('hi')"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"ENGRAM_LOG_FORMAT": fmt, "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    if fmt == "json":
        assert json.loads(line)["message"] == "hi"
    else:
        assert line.endswith("WARNING app [-]: hi")


def test_the_mcp_transport_s_per_request_line_is_not_logged():
    script = (
        "import logging; from app.logs import configure_logging; configure_logging('info'); "
        "logging.getLogger('mcp.server.streamable_http').info('Terminating session: None'); "
        "logging.getLogger('mcp.server.streamable_http').warning('kept')"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    assert "Terminating session" not in done.stderr and "kept" in done.stderr
