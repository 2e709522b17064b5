"""What a job kind is (handler, retry policy, limits), what a handler gets, and what callers see."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from app.jobs.lease import Lease


@dataclass(frozen=True)
class RetryPolicy:
    """`max_attempts` attempts in all; the delay after attempt n is base * 2**(n-1), capped.

    Computed here and handed to saq as the next `retry_delay`: saq's own backoff is full
    jitter, so its delays do not grow monotonically.
    """

    max_attempts: int = 5
    base_delay_s: float = 2.0
    max_delay_s: float = 300.0
    jitter: float = 0.2  # each delay is scaled by a random factor in [1 - jitter, 1]

    def delay_after(self, attempt: int) -> float:
        delay = min(self.max_delay_s, self.base_delay_s * 2 ** max(attempt - 1, 0))
        if self.jitter:
            delay *= 1 - self.jitter * random.random()
        return delay


@dataclass
class JobContext:
    """What a handler gets: ids to re-read state with, never the state itself."""

    job_id: str
    kind: str
    ids: list[str]
    payload: dict[str, Any]
    attempt: int
    max_attempts: int
    redis: aioredis.Redis
    deps: Any = None
    lease: Lease | None = field(default=None, repr=False)

    async def holds_lease(self) -> bool:
        """Whether this attempt still owns the job: a fencing check before an effect, for the
        case the lease cannot cover (an event loop blocked longer than heartbeat_s)."""
        return self.lease is not None and await self.lease.owned()


Handler = Callable[[JobContext], Awaitable[Any]]
DROP_ON_FINISH = -1  # saq deletes a job's record when it finishes with a negative ttl


@dataclass(frozen=True)
class JobKind:
    handler: Handler
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout_s: int = 300  # hard limit of one attempt (saq cancels it, and counts a failure)
    heartbeat_s: int = 10  # a silent attempt is given up after this; also the lease's TTL
    concurrency: int | None = None  # slots per worker process; None: the runner's default
    # How long a finished job's record stays readable by id; DROP_ON_FINISH: not at all.
    result_ttl_s: int = 86_400


@dataclass(frozen=True)
class Enqueued:
    job_id: str
    created: bool  # a new pending job was created
    rerun: bool = False  # it was running: it will run once more after the running attempt


@dataclass(frozen=True)
class JobStatus:
    job_id: str
    kind: str
    state: str  # queued | scheduled | running | done | dead | aborted | unknown
    attempts: int = 0
    max_attempts: int = 0
    enqueued_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    retry_at: float | None = None
    error: str | None = None
    result: Any = None


@dataclass(frozen=True)
class JobKeys:
    """Engram's own Redis keys of the jobs of one namespace (saq's are `saq:{ns}.{kind}:*`)."""

    namespace: str

    def stats(self, kind: str) -> str:
        return f"{self.namespace}:jobs:stats:{kind}"

    def dead(self, kind: str) -> str:
        return f"{self.namespace}:jobs:dead:{kind}"

    def lease(self, job_id: str) -> str:
        return f"{self.namespace}:jobs:lease:{job_id}"

    def rerun(self, job_id: str) -> str:
        return f"{self.namespace}:jobs:rerun:{job_id}"

    def durations(self, kind: str) -> str:
        return f"{self.namespace}:jobs:duration:{kind}"


# Upper bounds (seconds) of the job-duration histogram's buckets: from one embedding batch to a
# full re-embed. Kept in Redis (per bucket, count, sum), so every process's jobs count, as the
# other job figures do.
DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800)


def duration_field(seconds: float) -> str:
    """The histogram field a duration counts in: its bucket's index, or "inf" past the last."""
    for index, bound in enumerate(DURATION_BUCKETS):
        if seconds <= bound:
            return str(index)
    return "inf"


def summary(error: str | None) -> str | None:
    """The last line of a traceback (`ValueError: ...`), or the error as it is."""
    if not error:
        return None
    lines = [line for line in error.strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else None
