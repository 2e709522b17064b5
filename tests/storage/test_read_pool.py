"""The lean read connections (app.storage.resp.ReadPool) against a real FalkorDB server."""

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import pytest
import redis.asyncio as redis
from redis.exceptions import AuthenticationError, BusyLoadingError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError

from app.errors import StoreUnavailable
from app.storage.falkordb_server import EmbeddedFalkorDB
from app.storage.graph import GraphStore
from app.storage.resp import ReadPool
from tests.conftest import free_port

T = TypeVar("T")
# A read that keeps the server busy for a good fraction of a second.
SLOW = "UNWIND range(1, 3000000) AS x RETURN count(x)"


@pytest.fixture
async def pool(falkordb_url: str) -> AsyncIterator[ReadPool]:
    reads = ReadPool(falkordb_url, size=2)
    yield reads
    await reads.close()


@pytest.fixture
async def falkordb_server(tmp_path) -> AsyncIterator[EmbeddedFalkorDB]:
    """A server of the test's own, stopped at the end even if the test failed."""
    server = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def admin(falkordb_url: str) -> AsyncIterator[redis.Redis]:
    client = redis.Redis.from_url(falkordb_url, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
async def graph(falkordb_url: str) -> AsyncIterator[str]:
    """A graph that exists (a read of a graph that does not is an error reply)."""
    store = GraphStore(falkordb_url, graph_name())
    await store.query("CREATE (:Marker)")
    yield store.graph_name
    await store.query("MATCH (n) DELETE n")
    await store.close()


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


async def test_a_cancelled_read_never_answers_the_next_one(
    pool: ReadPool, graph: str, admin: redis.Redis
):
    slow = asyncio.create_task(pool.execute("GRAPH.RO_QUERY", graph, SLOW))
    await running(admin, "graph.ro_query")  # cancelled once running, not while connecting
    slow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await slow
    for word in ("first", "second", "third"):
        assert await pool.execute("ECHO", word) == word


async def running(admin: redis.Redis, command: str) -> None:
    """Waits until some client of the server is running `command`."""
    for _ in range(500):
        if any(c.get("cmd", "").lower() == command for c in await admin.client_list()):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{command} never ran")


async def eventually(read: Callable[[], Awaitable[T]], tries: int = 50) -> T:
    """The read's result once the server is free again: the slow reads a test gave up on still
    run there (on both of its threads) after their clients are gone."""
    for _ in range(tries):
        try:
            return await read()
        except StoreUnavailable:
            await asyncio.sleep(0.1)
    raise AssertionError("the store never answered again")


async def test_a_read_that_takes_too_long_is_store_unavailable(falkordb_url: str, graph: str):
    store = GraphStore(falkordb_url, graph, timeout_s=0.1)
    with pytest.raises(StoreUnavailable):
        await store.ro_rows(SLOW, {})
    marker = "MATCH (n:Marker) RETURN count(n)"
    assert await eventually(lambda: store.ro_rows(marker, {})) == [[1]]
    await store.close()


async def test_the_wait_for_a_connection_counts_against_the_timeout(falkordb_url: str, graph: str):
    reads = ReadPool(falkordb_url, size=1, timeout_s=0.15)
    busy = asyncio.create_task(reads.execute("GRAPH.RO_QUERY", graph, SLOW))
    await asyncio.sleep(0)  # `busy` holds the only connection
    with pytest.raises(TimeoutError):
        await reads.execute("ECHO", "queued behind it")
    with pytest.raises(TimeoutError):
        await busy
    await reads.close()


async def test_a_connection_closed_by_the_server_is_replaced(pool: ReadPool, admin: redis.Redis):
    own = await pool.execute("CLIENT", "ID")  # the connection now idle, and used next
    assert await admin.execute_command("CLIENT", "KILL", "ID", str(own)) == 1
    assert await pool.execute("ECHO", "again") == "again"
    assert await pool.execute("CLIENT", "ID") != own


async def test_a_password_a_database_and_a_name_from_the_url(falkordb_server: EmbeddedFalkorDB):
    host = falkordb_server.url.removeprefix("redis://")
    admin = redis.Redis.from_url(falkordb_server.url, decode_responses=True)
    await admin.config_set("requirepass", "s3cret")  # this connection stays authenticated
    try:
        await admin.execute_command("SELECT", "2")
        await admin.set("where", "db2")
        reads = ReadPool(f"redis://default:s3cret@{host}/2?client_name=engram-reads")
        assert await reads.execute("GET", "where") == "db2"
        assert await reads.execute("CLIENT", "GETNAME") == "engram-reads"
        await reads.close()
        wrong = ReadPool(f"redis://:wrong@{host}")
        with pytest.raises(AuthenticationError):  # a redis ConnectionError: 503 through ro_rows
            await wrong.execute("PING")
        await wrong.close()
    finally:
        await admin.config_set("requirepass", "")  # so that the fixture can stop the server
        await admin.aclose()


async def test_a_server_still_loading_is_a_connection_error():
    """A server loading its AOF answers LOADING to everything: a stand-in that only does that
    (catching a real server in the act would depend on timing)."""

    async def loading(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1024)
        writer.write(b"-LOADING Redis is loading the dataset in memory\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(loading, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reads = ReadPool(f"redis://127.0.0.1:{port}")
    with pytest.raises(BusyLoadingError) as raised:
        await reads.execute("GRAPH.RO_QUERY", "g", "RETURN 1")
    assert isinstance(raised.value, RedisConnectionError)
    await reads.close()
    server.close()
    await server.wait_closed()


async def test_through_the_store_a_refused_connection_is_store_unavailable(
    falkordb_server: EmbeddedFalkorDB,
):
    store = GraphStore(falkordb_server.url, graph_name())
    await store.query("CREATE (:Marker)")
    assert await store.ro_rows("MATCH (n) RETURN count(n)", {}) == [[1]]  # a pooled connection
    await falkordb_server.stop()
    with pytest.raises(StoreUnavailable):
        await store.ro_rows("RETURN 1", {})
    await store.close()


async def test_after_close_reads_fail_as_unavailable(falkordb_url: str):
    reads = ReadPool(falkordb_url)
    assert await reads.execute("PING") == "PONG"
    await reads.close()
    with pytest.raises(RedisConnectionError):
        await reads.execute("PING")


def test_only_plain_urls_are_served():
    assert ReadPool.supports("redis://h:1") and ReadPool.supports("unix:///tmp/x.sock")
    assert not ReadPool.supports("rediss://h:1")
