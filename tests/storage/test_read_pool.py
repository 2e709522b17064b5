"""The lean read connections (app.storage.resp.ReadPool) against a real FalkorDB server."""

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis
from redis.exceptions import ResponseError

from app.errors import StoreUnavailable
from app.storage.falkordb_server import EmbeddedFalkorDB
from app.storage.graph import GraphStore
from app.storage.resp import ReadPool
from tests.conftest import free_port

SLOW = "UNWIND range(1, 20000000) AS x RETURN count(x)"


@pytest.fixture
async def pool(falkordb_url: str) -> AsyncIterator[ReadPool]:
    reads = ReadPool(falkordb_url, size=2)
    yield reads
    await reads.close()


def graph_name() -> str:
    return f"reads-{uuid.uuid4().hex[:8]}"


async def test_a_read_answers_as_through_redis_py(falkordb_url: str, pool: ReadPool):
    name = graph_name()
    store = GraphStore(falkordb_url, name)
    await store.query("CREATE (:Memory {id: 'a', content: 'ünïcode \"quoted\"', n: 2})")
    command = ("GRAPH.RO_QUERY", name, "MATCH (m:Memory) RETURN properties(m), m.n", "--compact")
    through_redis_py = await store._graph.execute_command(*command)
    assert (await pool.execute(*command))[:2] == through_redis_py[:2]  # [2]: timing stats
    assert await store.ro_rows("MATCH (m:Memory) RETURN properties(m)", {}) == [
        [{"id": "a", "content": 'ünïcode "quoted"', "n": 2}]
    ]
    await store.query("MATCH (n) DETACH DELETE n")
    await store.close()


async def test_an_error_reply_raises_and_the_connection_goes_on(pool: ReadPool):
    with pytest.raises(ResponseError, match="(?i)unknown command"):
        await pool.execute("NO.SUCH.COMMAND")
    assert await pool.execute("PING") == "PONG"


@pytest.fixture
async def graph(falkordb_url: str) -> AsyncIterator[str]:
    """A graph that exists (a read of a graph that does not is an error reply)."""
    store = GraphStore(falkordb_url, graph_name())
    await store.query("CREATE (:Marker)")
    yield store.graph_name
    await store.query("MATCH (n) DELETE n")
    await store.close()


async def test_a_cancelled_read_never_answers_the_next_one(pool: ReadPool, graph: str):
    slow = asyncio.create_task(pool.execute("GRAPH.RO_QUERY", graph, SLOW))
    await asyncio.sleep(0.05)
    slow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await slow
    for word in ("first", "second", "third"):
        assert await pool.execute("ECHO", word) == word


async def test_a_read_times_out_as_an_os_error(falkordb_url: str, graph: str):
    reads = ReadPool(falkordb_url, timeout_s=0.05)
    with pytest.raises(TimeoutError):
        await reads.execute("GRAPH.RO_QUERY", graph, SLOW)
    assert isinstance(TimeoutError(), OSError)  # GraphStore.ro_rows turns OSError into 503
    assert await reads.execute("ECHO", "after") == "after"
    await reads.close()


async def test_connections_closed_by_the_server_are_replaced(falkordb_url: str, pool: ReadPool):
    await asyncio.gather(pool.execute("PING"), pool.execute("PING"))
    admin = redis.Redis.from_url(falkordb_url, decode_responses=True)
    own = await admin.client_id()
    killed = await admin.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
    assert killed >= 2, "the pool's idle connections were closed by the server"
    assert await admin.client_id() == own
    assert await pool.execute("ECHO", "again") == "again"
    await admin.aclose()


async def test_a_password_and_a_database_from_the_url(tmp_path):
    server = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    url = await server.start()
    host = url.removeprefix("redis://")
    admin = redis.Redis.from_url(url, decode_responses=True)
    await admin.config_set("requirepass", "s3cret")  # this connection stays authenticated
    try:
        await admin.execute_command("SELECT", "2")
        await admin.set("where", "db2")
        reads = ReadPool(f"redis://default:s3cret@{host}/2")
        assert await reads.execute("GET", "where") == "db2"
        await reads.close()
        wrong = ReadPool(f"redis://:wrong@{host}")
        with pytest.raises(ResponseError):
            await wrong.execute("PING")
        await wrong.close()
    finally:
        await admin.config_set("requirepass", "")
        await admin.aclose()
        await server.stop()


async def test_through_the_store_a_refused_connection_is_store_unavailable(tmp_path):
    server = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    store = GraphStore(await server.start(), graph_name())
    await store.query("CREATE (:Marker)")
    assert await store.ro_rows("MATCH (n) RETURN count(n)", {}) == [[1]]  # a pooled connection
    await server.stop()
    with pytest.raises(StoreUnavailable):
        await store.ro_rows("RETURN 1", {})
    await store.close()


def test_only_plain_urls_are_served():
    assert ReadPool.supports("redis://h:1") and ReadPool.supports("unix:///tmp/x.sock")
    assert not ReadPool.supports("rediss://h:1")
