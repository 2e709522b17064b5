"""A pause for writes, so a backup's snapshot never holds half of an acknowledged write.

Every mutating HTTP request passes the gate (WriteGateMiddleware). A backup closes it, waits
for the writes in flight to finish, takes its snapshot (GRAPH.COPY: milliseconds to a second),
and opens it again; writes that arrive meanwhile wait, they are not refused. A write made of
several graph queries (a memory, then its session links) is thus wholly in the snapshot or
wholly out of it. Background jobs are not gated: what they write is derived (embeddings,
enrichment) and a restored store queues again whatever is not done.
"""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import ServiceUnavailable

MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Operator requests that manage the gate themselves (they hold it for their whole run), and
# /mcp, whose tools call the API's routes in-process: those inner requests pass the gate, and an
# outer pass as well would hold a backup's drain until it timed out.
UNGATED_PATHS = ("/admin/restore", "/admin/recover-from-vectors", "/mcp")
DRAIN_TIMEOUT_S = 30.0


class WriteGate:
    """Counts writes in flight; `paused()` holds new ones and waits for those in flight."""

    def __init__(self) -> None:
        self._writers = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._open = asyncio.Event()
        self._open.set()
        self._pausing = asyncio.Lock()

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        while not self._open.is_set():  # re-checked: the gate may close again before we run
            await self._open.wait()
        self._writers += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._writers -= 1
            if self._writers == 0:
                self._idle.set()

    @asynccontextmanager
    async def paused(self, drain_timeout_s: float = DRAIN_TIMEOUT_S) -> AsyncIterator[None]:
        async with self._pausing:
            self._open.clear()
            try:
                try:
                    await asyncio.wait_for(self._idle.wait(), drain_timeout_s)
                except TimeoutError as exc:
                    raise ServiceUnavailable(
                        f"Writes in flight did not finish within {drain_timeout_s:.0f}s; "
                        "try the backup again"
                    ) from exc
                yield
            finally:
                self._open.set()


class WriteGateMiddleware:
    """Passes every mutating request through the gate."""

    def __init__(self, app: ASGIApp, gate: WriteGate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] not in MUTATING
            or scope["path"].startswith(UNGATED_PATHS)
        ):
            await self.app(scope, receive, send)
            return
        async with self.gate.writing():
            await self.app(scope, receive, send)
