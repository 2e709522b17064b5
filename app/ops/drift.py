"""Vector loss noticed: the graph's counts against the index's point count, and the repair.

Every live memory has a point, written just after the memory and re-created by sync; an
embedded memory (embedding_status done) has had its point since before it was marked so. The
counts are taken points first, so a write between two counts cannot make points look missing,
and judged by these rules (AutoMem's field `sync_status`):
- an empty index while the graph has embedded memories is `drift_detected`, always;
- points missing for embedded memories, or for memories at all, past TOLERANCE (writes in
  flight, and the counts are separate reads) are `drift_detected`. The start-up check allows
  nothing, and neither does a check after one that found embedded memories without points: a
  shortfall that outlives a check (CACHE_S at least) is not a write in flight;
- points past the memory count by more than TOLERANCE are `orphaned_vectors`;
- a vector store that replaced the recorded one (app/storage/deployment.py) may hold no points or
  another graph's, so it is `drift_detected` until a repairing sync has compared every memory
  with its point, across restarts and whatever the counts say.
Drift makes /health degraded and queues the repairing sync (at most once per COOLDOWN_S), whose
progress /health shows. The result is kept for CACHE_S so a busy health probe costs nothing;
start-up runs the check, and the runtime every DRIFT_CHECK_INTERVAL_S.
"""

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from app.jobs.kinds import SYNC
from app.jobs.queue import JobQueue
from app.ops.tasks import read_progress
from app.storage import Stores

log = logging.getLogger(__name__)

SyncStatus = Literal["synced", "drift_detected", "orphaned_vectors", "unknown"]
CACHE_S = 5.0
COOLDOWN_S = 60.0
REPAIR_JOB_IDS = ["drift"]


def tolerance(memories: int) -> int:
    """Differences up to this are writes in flight: 5 points, or 1% of a large store."""
    return max(5, memories // 100)


@dataclass(frozen=True)
class Counts:
    memories: int
    embedded: int
    vectors: int

    @property
    def unbacked(self) -> int:
        """Embedded memories without a point, at least (orphan points hide as many)."""
        return self.embedded - self.vectors


@dataclass(frozen=True)
class DriftCheck:
    status: SyncStatus
    counts: Counts | None = None

    @property
    def drifted(self) -> bool:
        return self.status in ("drift_detected", "orphaned_vectors")


@dataclass(frozen=True)
class Repair:
    """The repairing sync a drift queued: its job state and memories checked of total."""

    state: str
    done: int
    total: int | None


def judge(counts: Counts, *, strict: bool = False) -> SyncStatus:
    """The counts' verdict; `strict` allows no write in flight."""
    allowed = 0 if strict else tolerance(counts.memories)
    if counts.embedded and not counts.vectors:
        return "drift_detected"
    if counts.unbacked > allowed or counts.memories - counts.vectors > allowed:
        return "drift_detected"
    if counts.vectors - counts.memories > tolerance(counts.memories):
        return "orphaned_vectors"
    return "synced"


class DriftMonitor:
    """The latest check, refreshed at most every CACHE_S; queues the repair and follows it.

    `unverified` is given for a replaced vector store: it records the store checked, once the
    repairing sync is done.
    """

    def __init__(
        self,
        stores: Stores,
        jobs: JobQueue | None,
        *,
        unverified: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.stores, self.jobs = stores, jobs
        self._unverified = unverified
        self._last: DriftCheck = DriftCheck("unknown")
        self._checked_at = float("-inf")
        self._repair_queued_at = float("-inf")
        self._repair_job: str | None = None
        self._lock = asyncio.Lock()

    async def check(self) -> DriftCheck:
        """The current state ("unknown" while a store cannot be counted); never raises."""
        async with self._lock:
            if time.monotonic() - self._checked_at < CACHE_S:
                return self._last
            try:
                self._last = await self._judge()
            except Exception as exc:  # a store down: its own state says so; drift is unknown
                log.debug("drift check skipped: %s", exc)
                self._last = DriftCheck("unknown")
            self._checked_at = time.monotonic()
            if self._last.drifted:
                await self._queue_repair(self._last)
            return self._last

    async def repair(self) -> Repair | None:
        """The repairing sync this process queued, if any; None when it cannot be read."""
        if self._repair_job is None or self.jobs is None:
            return None
        try:
            status = await self.jobs.status(self._repair_job)
            progress = await read_progress(self.jobs, self._repair_job) or {}
        except Exception as exc:
            log.debug("repair progress unreadable: %s", exc)
            return None
        if status.state in ("queued", "scheduled"):
            return Repair(status.state, 0, None)
        return Repair(status.state, int(progress.get("done", 0)), progress.get("total"))

    async def _judge(self) -> DriftCheck:
        previous = self._last.counts
        strict = previous is None or previous.unbacked > 0
        vectors = await self.stores.vectors.count(None)
        embedded = await self.stores.graph.count_embedded()
        counts = Counts(await self.stores.graph.count_memories(None), embedded, vectors)
        status = judge(counts, strict=strict)
        if status == "synced" and not await self._verified(counts):
            status = "drift_detected"
        return DriftCheck(status, counts)

    async def _verified(self, counts: Counts) -> bool:
        """False while a replaced vector store waits for its repairing sync."""
        if self._unverified is None:
            return True
        if counts.memories and not await self._repaired():
            return False
        await self._unverified()
        self._unverified = None
        log.info("the replaced vector store has been checked against the graph")
        return True

    async def _repaired(self) -> bool:
        if self._repair_job is None or self.jobs is None:
            return False
        return (await self.jobs.status(self._repair_job)).state == "done"

    async def _queue_repair(self, found: DriftCheck) -> None:
        if self.jobs is None or time.monotonic() - self._repair_queued_at < COOLDOWN_S:
            return
        try:
            queued = await self.jobs.enqueue(SYNC, REPAIR_JOB_IDS, {"repair": True})
        except Exception as exc:
            log.warning("could not queue the repairing sync: %s", exc)
            return
        self._repair_job, self._repair_queued_at = queued.job_id, time.monotonic()
        counts = found.counts or Counts(0, 0, 0)
        log.warning(
            "vector index out of step with the graph (%s: %d memories, %d embedded, %d points%s); "
            "a repairing sync is queued",
            found.status,
            counts.memories,
            counts.embedded,
            counts.vectors,
            "; the vector store replaced the deployment's" if self._unverified else "",
        )
