"""Where FalkorDB is: one server's URL, or the Redis Sentinels that know the current primary.

Every connection Engram opens to FalkorDB's server (the graph's pool, the job queue, the start-up
wait, the deployment record) is made here, so all of them follow a failover the same way. With
sentinels, a connection asks them for the primary each time it connects (redis-py's
SentinelConnectionPool), and a READONLY answer (a primary demoted to a replica) closes the
connection so that the next one asks again. Nothing else is needed: a command on the lost primary
fails (503 on the request path), and the next connection goes to the primary Sentinel promoted.
"""

from dataclasses import dataclass
from typing import Any, Self

from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool

from app.config import Settings
from app.refusals import without_credentials

# A sentinel that does not answer must not hold up the question to the next one.
SENTINEL_TIMEOUT_S = 1.0


class SentinelPool(SentinelConnectionPool):
    """A Sentinel-managed pool that also closes its own connections to the sentinels."""

    async def aclose(self) -> None:
        await super().aclose()
        await self.sentinel_manager.aclose()


class BlockingSentinelPool(SentinelPool, BlockingConnectionPool):
    """Bounded like the graph's pool on one server: a caller waits for a free connection."""


@dataclass(frozen=True, slots=True)
class FalkorAddress:
    """One server (`url`), or the sentinels watching the primary named `master`."""

    url: str | None = None
    sentinels: tuple[tuple[str, int], ...] = ()
    master: str = "engram"
    sentinel_password: str | None = None

    @classmethod
    def of(cls, where: "str | FalkorAddress") -> Self:
        """A URL as an address (callers that know one server pass its URL)."""
        return where if isinstance(where, cls) else cls(url=str(where))

    @property
    def through_sentinel(self) -> bool:
        return self.url is None

    def client(self, **options: Any) -> Redis:
        """A client of the primary; `options` are redis-py's connection options."""
        if self.url is not None:
            return Redis.from_url(self.url, **options)
        client: Redis = self._sentinel().master_for(
            self.master, connection_pool_class=SentinelPool, **options
        )
        return client

    def pool(self, max_connections: int, timeout_s: float, **options: Any) -> ConnectionPool:
        """A bounded pool of connections to the primary: a caller waits up to `timeout_s` for
        a free one."""
        if self.url is not None:
            return BlockingConnectionPool.from_url(
                self.url, max_connections=max_connections, timeout=timeout_s, **options
            )
        client = self._sentinel().master_for(
            self.master,
            connection_pool_class=BlockingSentinelPool,
            max_connections=max_connections,
            timeout=timeout_s,
            **options,
        )
        pool: ConnectionPool = client.connection_pool
        return pool

    def describe(self) -> str:
        """For logs and messages: never a password."""
        if self.url is not None:
            return without_credentials(self.url)
        hosts = ",".join(f"{host}:{port}" for host, port in self.sentinels)
        return f"primary {self.master!r} of the sentinels {hosts}"

    def _sentinel(self) -> Sentinel:
        if not self.sentinels:
            raise ValueError("a Sentinel address needs at least one sentinel")
        options: dict[str, Any] = {
            "socket_timeout": SENTINEL_TIMEOUT_S,
            "socket_connect_timeout": SENTINEL_TIMEOUT_S,
        }
        if self.sentinel_password:
            options["password"] = self.sentinel_password
        return Sentinel(list(self.sentinels), sentinel_kwargs=options)  # type: ignore[no-untyped-call]


def falkordb_address(settings: Settings) -> FalkorAddress | None:
    """The FalkorDB these settings name; None on the embedded default (Engram starts its own)."""
    if settings.falkordb_sentinels:
        return FalkorAddress(
            sentinels=tuple(settings.falkordb_sentinels),
            master=settings.falkordb_sentinel_master,
            sentinel_password=settings.falkordb_sentinel_password,
        )
    if settings.falkordb_url is not None:
        return FalkorAddress(url=settings.falkordb_url)
    return None
