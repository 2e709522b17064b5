"""A FalkorDB graph over a bounded redis-py connection pool: queries, the hot read path,
server commands and health. Store outages become StoreUnavailable."""

import asyncio
import copy
import logging
import time
from typing import Any, Self, TypedDict

from falkordb.asyncio.graph import AsyncGraph
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.errors import StoreUnavailable
from app.storage.falkordb import compact
from app.storage.falkordb.address import FalkorAddress
from app.storage.falkordb.replication import Replicas

log = logging.getLogger(__name__)
INDEXES = "CALL db.indexes() YIELD label, properties, types, status"
REWRITE_TIMEOUT_S = 120.0
REWRITE_POLL_S = 0.05


class GraphIndex(TypedDict):
    """One index as `db.indexes()` reports it."""

    label: str
    properties: list[str]
    types: dict[str, list[str]]  # property -> index kinds (RANGE, FULLTEXT, VECTOR)
    status: str  # OPERATIONAL or UNDER CONSTRUCTION


class FalkorGraph:
    """One graph of a FalkorDB server (or of the primary Sentinel names), over a bounded
    connection pool. With `replicas`, every write query waits until that many replicas have
    it (`WAIT`, app/storage/falkordb/replication.py)."""

    def __init__(
        self,
        where: str | FalkorAddress,
        graph_name: str,
        pool_size: int = 16,
        timeout_s: float = 30.0,
        replicas: Replicas | None = None,
    ) -> None:
        self.address = FalkorAddress.of(where)
        self._pool = self.address.pool(
            pool_size,
            10,
            socket_timeout=timeout_s,
            socket_connect_timeout=5,
            decode_responses=True,
        )
        # The graph runs its commands on a plain client of the pool: the client library's own
        # FalkorDB() probes the server synchronously when made, and cannot probe through a
        # Sentinel-managed pool.
        self._client = Redis(connection_pool=self._pool)
        self.graph_name = graph_name
        self._graph = AsyncGraph(self._client, graph_name)
        self.replicas = replicas or Replicas()

    async def close(self) -> None:
        await self._pool.aclose()

    async def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Runs a write query; store outages become StoreUnavailable. With WAIT on, a write
        that did not reach its replicas in time is ReplicasNotReached (kept on the primary)."""
        if not self.replicas.wanted:
            return await self._run(self._graph.query, cypher, params)
        try:
            result = await self.replicas.write(self._client, self._graph, cypher, params)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable("FalkorDB is unavailable") from exc
        rows: list[list[Any]] = result.result_set
        return rows

    async def ro_query(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Runs a read-only query."""
        return await self._run(self._graph.ro_query, cypher, params)

    async def _run(
        self, method: Any, cypher: str, params: dict[str, Any] | None
    ) -> list[list[Any]]:
        try:
            result = await method(cypher, params or {})
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable("FalkorDB is unavailable") from exc
        rows: list[list[Any]] = result.result_set
        return rows

    async def ro_rows(self, cypher: str, params: dict[str, Any]) -> list[list[Any]]:
        """A read-only query whose columns are scalars, lists or maps (`properties(m)`, never a
        node), read by the fast compact reader; for the hot read paths."""
        args = (
            "GRAPH.RO_QUERY",
            self.graph_name,
            compact.params_header(params) + cypher,
            "--compact",
        )
        try:
            reply = await self._graph.execute_command(*args)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable("FalkorDB is unavailable") from exc
        for part in reply:
            if isinstance(part, Exception):
                raise part
        return compact.rows(reply)

    def on_graph(self, graph_name: str) -> Self:
        """Another graph of the same server over this store's connections (operator paths:
        backup copies, restore). Close only the original store, never this view."""
        view = copy.copy(self)
        view.graph_name = graph_name
        view._graph = AsyncGraph(self._client, graph_name)
        return view

    async def copy_to(self, graph_name: str) -> None:
        """GRAPH.COPY: a point-in-time copy of this graph (writes go on while it is made)."""
        await self._run_command(self._graph.copy, graph_name)

    async def delete_graph(self) -> None:
        """GRAPH.DELETE: this graph, its indexes included."""
        await self._run_command(self._graph.delete)

    async def rewrite_log(self, timeout_s: float = REWRITE_TIMEOUT_S) -> bool:
        """BGREWRITEAOF, waited for: the append-only file is rewritten from the data as it is
        now, so what was deleted leaves the disk too. False if the server refused, the rewrite
        failed or did not finish within `timeout_s` (or the server keeps no AOF)."""
        client = self._client
        try:
            await _start_rewrite(client, timeout_s)
            return await _rewrite_succeeded(client, timeout_s)
        except (RedisError, OSError):
            log.exception("BGREWRITEAOF failed")
            return False

    async def drop_query_log(self) -> None:
        """Deletes FalkorDB's log of recent queries of this graph (`telemetry{graph}`, a stream
        it persists, queries and parameters in full)."""
        await self._run_command(self._client.delete, f"telemetry{{{self.graph_name}}}")

    async def _run_command(self, method: Any, *args: Any) -> Any:
        try:
            return await method(*args)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable("FalkorDB is unavailable") from exc

    async def ping(self) -> bool:
        """True if the server answers; never raises."""
        try:
            return bool(await self._client.ping())
        except (RedisError, OSError):
            return False

    async def indexes(self) -> list[GraphIndex]:
        """Every index with its status (OPERATIONAL or UNDER CONSTRUCTION)."""
        rows = await self.ro_query(INDEXES)
        return [
            {"label": label, "properties": properties, "types": types, "status": status}
            for label, properties, types, status in rows
        ]

    async def wait_for_indexes(self, timeout_s: float) -> None:
        """Blocks until FalkorDB reports every index OPERATIONAL (they rebuild after a restart)."""
        deadline = time.monotonic() + timeout_s
        while True:
            pending = [i for i in await self.indexes() if i["status"] != "OPERATIONAL"]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise StoreUnavailable(f"FalkorDB indexes not operational after {timeout_s}s")
            log.info("waiting for %d FalkorDB index(es) to be built", len(pending))
            await asyncio.sleep(0.1)


async def _rewrite_succeeded(client: Any, timeout_s: float) -> bool:
    """Waits until no AOF rewrite runs or is scheduled; whether the last one succeeded."""
    deadline = time.monotonic() + timeout_s
    while True:
        info = await client.info("persistence")
        if not info.get("aof_enabled"):
            return False
        if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
            return bool(info["aof_last_bgrewrite_status"] == "ok")
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(REWRITE_POLL_S)


async def _start_rewrite(client: Any, timeout_s: float) -> None:
    try:
        await client.bgrewriteaof()
    except ResponseError as exc:
        if "already in progress" not in str(exc):
            raise
        # that rewrite may have begun before our last write: wait for it, then ask again
        await _rewrite_succeeded(client, timeout_s)
        await client.bgrewriteaof()
