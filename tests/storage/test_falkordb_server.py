"""The embedded FalkorDB server: start, reuse after a crash, stale pidfile, clean stop."""

import os
from pathlib import Path

from app.storage.falkordb_server import EmbeddedFalkorDB, _is_redis_process
from app.storage.graph import GraphStore
from tests.conftest import free_port


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
