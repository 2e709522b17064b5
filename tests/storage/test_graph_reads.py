"""The hot read path (GraphStore.ro_rows, over redis-py's async pool) against a real FalkorDB."""

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import pytest
import redis.asyncio as redis

from app.errors import StoreUnavailable
from app.storage.falkordb.server import EmbeddedFalkorDB
from app.storage.graph.store import GraphStore
from tests.conftest import free_port

T = TypeVar("T")
# A read that keeps the server busy for a good fraction of a second.
SLOW = "UNWIND range(1, 3000000) AS x RETURN count(x)"
MARKER = "MATCH (n:Marker) RETURN count(n)"


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
    """A graph that exists, with one marker node."""
    store = GraphStore(falkordb_url, graph_name())
    await store.query("CREATE (:Marker)")
    yield store.graph_name
    await store.query("MATCH (n) DELETE n")
    await store.close()


def graph_name() -> str:
    return f"reads-{uuid.uuid4().hex[:8]}"


async def running(admin: redis.Redis, command: str) -> None:
    """Waits until some client of the server is running `command`: blocked on it (flag "b"),
    not idle after it (CLIENT LIST keeps a client's last command)."""
    for _ in range(500):
        clients = await admin.client_list()
        if any(c.get("cmd", "").lower() == command and "b" in c.get("flags", "") for c in clients):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{command} never ran")


async def eventually(read: Callable[[], Awaitable[T]], tries: int = 50) -> T:
    """The read's result once the server is free again: the slow reads a test gave up on still
    run there after their clients are gone."""
    for _ in range(tries):
        try:
            return await read()
        except StoreUnavailable:
            await asyncio.sleep(0.1)
    raise AssertionError("the store never answered again")


async def test_a_read_returns_scalars_lists_and_maps(falkordb_url: str):
    store = GraphStore(falkordb_url, graph_name())
    await store.query("CREATE (:Memory {id: 'a', content: 'ünïcode \"quoted\"', n: 2})")
    rows = await store.ro_rows("MATCH (m:Memory) RETURN properties(m), m.n, [m.id]", {})
    assert rows == [[{"id": "a", "content": 'ünïcode "quoted"', "n": 2}, 2, ["a"]]]
    await store.query("MATCH (n) DETACH DELETE n")
    await store.close()


async def test_a_cancelled_read_never_answers_the_next_one(
    falkordb_url: str, graph: str, admin: redis.Redis
):
    store = GraphStore(falkordb_url, graph, pool_size=1)
    slow = asyncio.create_task(store.ro_rows(SLOW, {}))
    await running(admin, "graph.ro_query")  # cancelled once running, not while connecting
    slow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await slow
    for word in ("first", "second", "third"):
        assert await eventually(lambda w=word: store.ro_rows("RETURN $w", {"w": w})) == [[word]]
    await store.close()


async def test_a_read_that_takes_too_long_is_store_unavailable(falkordb_url: str, graph: str):
    store = GraphStore(falkordb_url, graph, timeout_s=0.1)
    with pytest.raises(StoreUnavailable):
        await store.ro_rows(SLOW, {})
    assert await eventually(lambda: store.ro_rows(MARKER, {})) == [[1]]
    await store.close()


async def test_an_error_reply_raises_and_the_next_read_answers(graph: str, falkordb_url: str):
    store = GraphStore(falkordb_url, graph, pool_size=1)
    with pytest.raises(redis.ResponseError):
        await store.ro_rows("THIS IS NOT CYPHER", {})
    assert await store.ro_rows(MARKER, {}) == [[1]]
    await store.close()


async def test_a_connection_closed_by_the_server_is_replaced(
    falkordb_url: str, graph: str, admin: redis.Redis
):
    store = GraphStore(falkordb_url, graph, pool_size=1)
    assert await store.ro_rows(MARKER, {}) == [[1]]  # the pool now holds one idle connection
    for client in await admin.client_list():
        if client.get("cmd", "").lower() == "graph.ro_query":
            await admin.execute_command("CLIENT", "KILL", "ID", client["id"])
    assert await eventually(lambda: store.ro_rows(MARKER, {})) == [[1]]
    await store.close()


async def test_a_refused_connection_is_store_unavailable(falkordb_server: EmbeddedFalkorDB):
    store = GraphStore(falkordb_server.url, graph_name())
    await store.query("CREATE (:Marker)")
    assert await store.ro_rows(MARKER, {}) == [[1]]  # a pooled connection
    await falkordb_server.stop()
    with pytest.raises(StoreUnavailable):
        await store.ro_rows("RETURN 1", {})
    await store.close()
