"""`WAIT` after each graph write (FALKORDB_WAIT_REPLICAS): an acknowledged write is on that many
replicas, so a failover to one of them cannot lose it.

Replication from a FalkorDB (Redis) primary is asynchronous: the primary answers a write before
any replica has it, and a primary that dies then takes the write with it; the replica Sentinel
promotes never saw it. `WAIT n timeout` blocks the connection that wrote until n replicas have
acknowledged everything it wrote, or the timeout passes, and says how many did. The write query
and its WAIT go out on one connection as a pipeline (WAIT counts that connection's writes only).

A write that reached fewer replicas in time is kept on the primary (Redis cannot take it back)
and answered with ReplicasNotReached, a 503: the client does not take it as safe, and a retry
with the same Idempotency-Key finishes it without writing it twice. The shortfall also shows in
`/health` (the falkordb store degraded) until a write reaches its replicas again.
"""

from dataclasses import dataclass, field
from typing import Any

from falkordb.asyncio.graph import AsyncGraph
from falkordb.asyncio.query_result import QueryResult
from redis.asyncio import Redis

from app.errors import StoreUnavailable
from app.models import to_iso, utc_now
from app.storage.falkordb.compact import params_header
from app.storage.health import ComponentHealth


class ReplicasNotReached(StoreUnavailable):
    code = "not_replicated"


@dataclass
class Replicas:
    """How many replicas a write must reach (0: no WAIT), within `timeout_ms`; and how the last
    write fared."""

    wanted: int = 0
    timeout_ms: int = 1000
    state: ComponentHealth = field(default_factory=ComponentHealth)

    async def write(
        self, client: Redis, graph: AsyncGraph, cypher: str, params: dict[str, Any] | None
    ) -> QueryResult:
        """Runs a write query, then WAITs on its connection; ReplicasNotReached if too few
        replicas acknowledged it in time."""
        pipe = client.pipeline(transaction=False)
        query = params_header(params or {}) + cypher
        pipe.execute_command("GRAPH.QUERY", graph.name, query, "--compact")
        pipe.execute_command("WAIT", self.wanted, self.timeout_ms)
        reply, acknowledged = await pipe.execute(raise_on_error=False)
        if isinstance(reply, Exception):
            raise reply
        result = QueryResult(graph)
        await result.parse(reply)
        if isinstance(acknowledged, Exception):
            raise acknowledged
        self._record(int(acknowledged))
        return result

    def _record(self, acknowledged: int) -> None:
        if acknowledged >= self.wanted:
            self.state.ok = True
            return
        message = (
            f"the write is saved on the FalkorDB primary but reached {acknowledged} of "
            f"{self.wanted} replica(s) within {self.timeout_ms} ms (FALKORDB_WAIT_REPLICAS): a "
            "failover now could lose it; retry with the same Idempotency-Key"
        )
        self.state.ok = False
        self.state.last_error = f"a write reached {acknowledged} of {self.wanted} replica(s)"
        self.state.last_error_at = to_iso(utc_now())
        self.state.failures += 1
        raise ReplicasNotReached(message)
