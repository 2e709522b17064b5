"""The store watch: notices FalkorDB going away and coming back, and brings the embedded one back.

Every `interval_s` it pings FalkorDB. When the ping fails it logs one line (the store is lost,
requests get 503), marks the store failed on the health board (so /health and /ready follow),
and, on the embedded default, restarts the server Engram started once its process is gone: the
append-only file brings the data back. Restarts are retried with capped exponential backoff;
with FALKORDB_URL it only waits. When the ping answers again it logs one more line: how long the
outage lasted, how many requests were answered 503 and how many job or housekeeping failures
were kept out of the log (app/storage/outage.py), and the memory count.

The connections need no help: redis-py's pools and the read pool (app/storage/resp.py) open a
new connection for the next command once the old one failed, and saq's loops retry on their own
timers.
"""

import asyncio
import logging
import time

from app.storage import Stores
from app.storage.falkordb.server import EmbeddedFalkorDB
from app.storage.outage import COUNTS, quiet_library_loggers

log = logging.getLogger(__name__)

COMPONENT = "falkordb"
FIRST_RESTART_DELAY_S = 0.5
MAX_RESTART_DELAY_S = 10.0


class StoreWatch:
    def __init__(
        self, stores: Stores, server: EmbeddedFalkorDB | None, url: str, interval_s: float = 1.0
    ) -> None:
        self.stores, self.server, self.url, self.interval_s = stores, server, url, interval_s
        self.lost_at: float | None = None
        self.restarts = 0
        self._next_restart_at = 0.0
        self._restart_delay = FIRST_RESTART_DELAY_S
        self._restart_error: str | None = None

    async def run(self) -> None:
        """Watches until cancelled."""
        quiet_library_loggers()
        while True:
            await self.check()
            await asyncio.sleep(self.interval_s if self.lost_at is None else 0.2)

    async def check(self) -> None:
        """One round: ping, and act on a change (lost, back) or on a dead embedded server."""
        # Twice: the first command on a connection the server closed fails once (a restart).
        if await self.stores.graph.ping() or await self.stores.graph.ping():
            if self.lost_at is not None:
                await self._back()
            return
        if self.lost_at is None:
            self._lost()
        if self.server is not None and not self.server.running():
            await self._restart()

    def _lost(self) -> None:
        self.lost_at = time.monotonic()
        self.stores.health.failed(COMPONENT, "FalkorDB does not answer")
        how = "restarting the embedded server" if self.server else "waiting for it to return"
        log.error("FalkorDB at %s is lost: requests get 503 meanwhile; %s", self.url, how)

    async def _restart(self) -> None:
        assert self.server is not None
        now = time.monotonic()
        if now < self._next_restart_at:
            return
        if self.restarts == 0 or self._restart_error is None:
            log.warning("embedded FalkorDB %s; starting it again", self.server.exit_status())
        try:
            await self.server.start()
        except Exception as exc:
            error = str(exc).splitlines()[0]
            if error != self._restart_error:  # a new reason: once, not at every attempt
                log.error("embedded FalkorDB did not start (%s); retrying with backoff", error)
            self._restart_error = error
            self._next_restart_at = now + self._restart_delay
            self._restart_delay = min(self._restart_delay * 2, MAX_RESTART_DELAY_S)
            return
        self.restarts += 1
        self._restart_error = None
        self._restart_delay = FIRST_RESTART_DELAY_S

    async def _back(self) -> None:
        assert self.lost_at is not None
        lasted = time.monotonic() - self.lost_at
        self.lost_at = None
        self.stores.health.succeeded(COMPONENT)
        counts = COUNTS.take()  # since the last outage ended: this one, from its first failure
        try:
            memories: int | str = await self.stores.graph.count_memories(None)
        except Exception:
            memories = "?"
        log.warning(
            "FalkorDB at %s is back after %.1f s (%d restart(s)): %d request(s) were answered "
            "503, %d job/upkeep failure(s) kept out of the log; %s memories",
            self.url,
            lasted,
            self.restarts,
            counts.refused_requests,
            counts.quiet_errors,
            memories,
        )
        self.restarts = 0
