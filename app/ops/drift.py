"""Vector loss noticed: the graph's memory count against the index's point count.

Every live memory has a point (written with it, re-created by sync), so the two counts differ
only for the moment between a write and its mirror. A difference past TOLERANCE means points
were lost (a deleted or restored-from-old shard) or left behind: /health turns degraded with
`sync_status` (AutoMem's field: `drift_detected` when points are missing, `orphaned_vectors`
when there are too many) and a repairing sync is queued, at most once per COOLDOWN_S. Both
counts are cheap (a label count, an exact point count); the result is kept for CACHE_S so a
busy health probe costs nothing. Start-up runs the same check.
"""

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Literal

from app.jobs.kinds import SYNC
from app.jobs.queue import JobQueue
from app.storage import Stores

log = logging.getLogger(__name__)

SyncStatus = Literal["synced", "drift_detected", "orphaned_vectors", "unknown"]
CACHE_S = 5.0
COOLDOWN_S = 60.0


def tolerance(memories: int) -> int:
    """Differences up to this are writes in flight: 5 points, or 1% of a large store."""
    return max(5, memories // 100)


@dataclass(frozen=True)
class DriftCheck:
    status: SyncStatus
    memories: int | None = None
    vectors: int | None = None

    @property
    def drifted(self) -> bool:
        return self.status in ("drift_detected", "orphaned_vectors")


def judge(memories: int, vectors: int) -> DriftCheck:
    if memories - vectors > tolerance(memories):
        return DriftCheck("drift_detected", memories, vectors)
    if vectors - memories > tolerance(memories):
        return DriftCheck("orphaned_vectors", memories, vectors)
    return DriftCheck("synced", memories, vectors)


class DriftMonitor:
    """The latest count comparison, refreshed at most every CACHE_S; queues the repair."""

    def __init__(self, stores: Stores, jobs: JobQueue | None) -> None:
        self.stores, self.jobs = stores, jobs
        self._last: DriftCheck = DriftCheck("unknown")
        self._checked_at = float("-inf")
        self._repair_queued_at = float("-inf")
        self._lock = asyncio.Lock()

    async def check(self) -> DriftCheck:
        """The current state ("unknown" while a store cannot be counted); never raises."""
        async with self._lock:
            if time.monotonic() - self._checked_at < CACHE_S:
                return self._last
            self._last = await self._count()
            self._checked_at = time.monotonic()
            if self._last.drifted:
                await self._queue_repair(self._last)
            return self._last

    async def _count(self) -> DriftCheck:
        try:
            memories = await self.stores.graph.count_memories(None)
            vectors = await self.stores.vectors.count(None)
        except Exception as exc:  # a store down: its own state says so; drift is unknown
            log.debug("drift check skipped: %s", exc)
            return DriftCheck("unknown")
        return judge(memories, vectors)

    async def _queue_repair(self, found: DriftCheck) -> None:
        if self.jobs is None or time.monotonic() - self._repair_queued_at < COOLDOWN_S:
            return
        try:
            await self.jobs.enqueue(SYNC, ["drift"], {"repair": True})
        except Exception as exc:
            log.warning("could not queue the repairing sync: %s", exc)
            return
        self._repair_queued_at = time.monotonic()
        log.warning(
            "vector index out of step with the graph (%s: %d memories, %d points); "
            "a repairing sync is queued",
            found.status,
            found.memories,
            found.vectors,
        )
