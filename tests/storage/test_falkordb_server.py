"""The embedded FalkorDB server: start, reuse after a crash, stale pidfile, clean stop."""

import asyncio
import logging
import os
import time
from pathlib import Path

import pytest
import redis.asyncio as redis

from app.storage.falkordb import server as falkordb_server
from app.storage.falkordb.server import EmbeddedFalkorDB, _is_redis_process
from app.storage.graph.store import GraphStore
from tests.conftest import free_port

KEYS = 2000  # x 1 ms of key-load-delay each


def server_pid(server: EmbeddedFalkorDB) -> int:
    return int(server.pidfile.read_text())


async def test_start_runs_falkordb_422_with_aof_on_loopback(tmp_path: Path):
    server = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    url = await server.start()
    graph = GraphStore(url, "probe")
    try:
        assert await graph.ping()
        client = graph._client
        modules = await client.execute_command("MODULE", "LIST")
        versions = {m["name"]: m["ver"] for m in modules}
        assert versions["graph"] == 42201
        assert (await client.config_get("appendonly"))["appendonly"] == "yes"
        assert (await client.config_get("appendfsync"))["appendfsync"] == "everysec"
        assert (await client.config_get("bind"))["bind"] == "127.0.0.1"
    finally:
        await graph.close()
        await server.stop()
    assert not server.pidfile.exists()


async def test_live_server_from_a_crashed_run_is_reused(tmp_path: Path):
    port = free_port()
    first = EmbeddedFalkorDB(data_dir=tmp_path, port=port)
    await first.start()
    pid = server_pid(first)
    # Engram "crashed": nobody stopped the server. The next start must adopt it, not start another.
    second = EmbeddedFalkorDB(data_dir=tmp_path, port=port)
    await second.start()
    assert server_pid(second) == pid
    await second.stop()
    assert not _is_redis_process(pid)
    first._process.wait(timeout=5)


async def test_stale_pidfile_is_replaced(tmp_path: Path):
    (tmp_path / "redis.pid").write_text(str(os.getpid()))  # alive, but not a redis-server
    server = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    await server.start()
    try:
        assert server_pid(server) != os.getpid()
        assert _is_redis_process(server_pid(server))
    finally:
        await server.stop()


async def test_a_server_still_loading_a_large_store_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    """A large store's data loads for longer than the server takes to answer (1M memories: a
    minute on 2 cores): while it reports loading, start waits, and the data is all there after.
    Redis's own test knob `key-load-delay` makes this store's load take about 2 s."""
    first = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    client = redis.Redis.from_url(await first.start())
    async with client.pipeline(transaction=False) as pipe:
        for n in range(KEYS):
            pipe.set(f"key:{n}", "value")
        await pipe.execute()
    await client.bgrewriteaof()  # into the RDB preamble, where key-load-delay applies
    while (await client.info("persistence"))["aof_rewrite_in_progress"]:
        await asyncio.sleep(0.05)
    await client.aclose()
    await first.stop()

    command = EmbeddedFalkorDB._command
    slow = ["--key-load-delay", "1000", "--loading-process-events-interval-bytes", "1024"]
    monkeypatch.setattr(EmbeddedFalkorDB, "_command", lambda self: [*command(self), *slow])
    monkeypatch.setattr(falkordb_server, "START_TIMEOUT_S", 1.0)  # to answer at all
    monkeypatch.setattr(falkordb_server, "LOAD_LOG_EVERY_S", 0.0)
    caplog.set_level(logging.INFO, logger=falkordb_server.__name__)
    second = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    started = time.monotonic()
    client = redis.Redis.from_url(await second.start())
    try:
        assert time.monotonic() - started > 1.0  # longer than the time to answer
        assert any("is loading its data" in r.getMessage() for r in caplog.records)
        assert await client.dbsize() == KEYS
    finally:
        await client.aclose()
        await second.stop()


async def test_a_server_left_running_on_another_port_is_adopted_there(tmp_path: Path):
    first = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    await first.start()
    pid = server_pid(first)
    # Engram crashed; it starts again configured with another port: the server it left holds
    # the data directory, so that server is used, on the port it listens on.
    second = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    url = await second.start()
    try:
        assert second.port == first.port and url == first.url
        assert server_pid(second) == pid
        graph = GraphStore(url, "probe")
        assert await graph.ping()
        await graph.close()
    finally:
        await second.stop()
        first._process.wait(timeout=5)
