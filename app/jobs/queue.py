"""Engram's durable jobs on saq, in the Redis server that hosts FalkorDB.

saq (MIT, `saq==0.26.4`, installed *without* its `[redis]` extra, whose `redis<8` cap conflicts
with falkordb's `redis>=8`) supplies the queue: one saq queue per job kind (lists `queued` and
`active`, a sorted set `incomplete`, one JSON record per job), atomic BLMOVE hand-off, dedupe by
job key, retries with a per-job delay, timeouts, heartbeats and a sweeper that re-queues the jobs
of a worker that died. This module is a thin layer over it:

* `JobQueue.enqueue(kind, ids, payload)`: the job id is `"{kind}:{ids joined by /}"`, so a second
  enqueue while the first is pending is a no-op; while it is *running*, a rerun flag makes it run
  once more after the running attempt (the running attempt may have read the old state).
* a per-job lease (SET NX PX, renewed by the heartbeat, compare-and-delete on release) so two
  attempts of one job do not run at the same time when saq's sweeper re-queues a job whose
  worker is only slow; and a sweep that does not re-queue a job caught between saq's BLMOVE and
  its ACTIVE mark (saq 0.26.4 does, see `_KindQueue.sweep`). Limit: a worker whose event loop
  is blocked (or process paused) longer than `heartbeat_s` loses its lease without noticing
  until its next await; a handler that must never overlap checks `ctx.holds_lease()` (fencing)
  right before its effect, and keeps CPU work off the loop (`asyncio.to_thread`).
* `RetryPolicy`: exponential backoff with a cap and bounded jitter, computed here and handed to
  saq as the next `retry_delay` (saq's own backoff is full jitter, i.e. not monotonic).
* dead letters (`{ns}:jobs:dead:{kind}`, job id -> JSON with the last error and the history),
  counters per kind (`{ns}:jobs:stats:{kind}`) and `status(job_id)` for operator-started jobs.
* `JobRunner`: N concurrent slots per kind in the current event loop (inside the API process or
  in `python -m app.worker`); it never installs signal handlers (saq's Worker would take over
  SIGINT/SIGTERM from uvicorn, and several Workers in one loop would overwrite each other's).

Redis keys (namespace "engram"): saq's `saq:{ns}.{kind}:*` and `saq:job:{ns}.{kind}:{job_id}`,
and ours under `{ns}:jobs:` (stats, dead, lease, rerun).

Timing of a killed worker's job: the first sweep (every `sweep_s`, by any live worker) after its
heartbeat is older than `heartbeat_s` (or its attempt older than `timeout_s`) re-queues it at
once: re-delivered after heartbeat_s .. heartbeat_s + sweep_s, + sweep_abort_wait_s. It counts
as an attempt. Retry delays have a resolution of 1 s (saq's scheduler polls once a second).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from saq import Job, Status, Worker
from saq.queue.redis import RedisQueue

log = logging.getLogger(__name__)

FUNCTION = "run"  # the one saq function of every kind queue; it dispatches to the kind's handler
SWEPT = "swept"  # saq's error for a job whose worker stopped heart-beating (or timed out)
CANCELLED = "cancelled"  # saq's error for a job cancelled by a worker shutting down
_REASONS = {
    SWEPT: "swept: its worker stopped heart-beating (died, stalled or timed out)",
    CANCELLED: "cancelled: its worker shut down",
}
HISTORY_LEN = 10
ERROR_LEN = 4000
JOB_BATCH = 32  # memories per embed or enrich job: one embedding provider batch


def batches(ids: Sequence[str], size: int = JOB_BATCH) -> list[list[str]]:
    """The ids in order, `size` at a time: one job each."""
    return [list(ids[start : start + size]) for start in range(0, len(ids), size)]


def batch_key(ids: Sequence[str]) -> str:
    """A job key for memories: one memory's id, or a digest of several ids (so that a repeated
    scan of the same memories coalesces into the job already queued)."""
    if len(ids) == 1:
        return ids[0]
    return "batch-" + hashlib.sha1("/".join(sorted(ids)).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class RetryPolicy:
    """`max_attempts` attempts in all; the delay after attempt n is base * 2**(n-1), capped."""

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
    lease: _Lease | None = field(default=None, repr=False)

    async def holds_lease(self) -> bool:
        """Whether this attempt still owns the job: a fencing check before an effect, for the
        case the lease cannot cover (an event loop blocked longer than heartbeat_s)."""
        return self.lease is not None and await self.lease.owned()


Handler = Callable[[JobContext], Awaitable[Any]]


@dataclass(frozen=True)
class JobKind:
    handler: Handler
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout_s: int = 300  # hard limit of one attempt (saq cancels it, and counts a failure)
    heartbeat_s: int = 10  # a silent attempt is given up after this; also the lease's TTL
    concurrency: int | None = None  # slots per worker process; None: the runner's default
    result_ttl_s: int = 86_400  # how long a finished job's record stays readable by id


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


class LeaseLost(RuntimeError):
    """The attempt's lease expired (event loop blocked longer than heartbeat_s); retried."""


def _s(ms: int | float | None) -> float | None:
    return ms / 1000 if ms else None


def _summary(error: str | None) -> str | None:
    """The last line of a traceback (`ValueError: ...`), or the error as it is."""
    if not error:
        return None
    lines = [line for line in error.strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else None


_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


# One sweeper at a time (lock for `lock` s); returns [job id, record or nil] for `active`.
_SWEEP_SCAN = """
if redis.call('exists', KEYS[1]) == 1 then return {} end
redis.call('set', KEYS[1], 1, 'EX', ARGV[1])
local out = {}
for i, id in ipairs(redis.call('lrange', KEYS[2], 0, -1)) do
  out[i] = {id, redis.call('get', id)}
end
return out
"""


class _Lease:
    def __init__(self, jobs: JobQueue, key: str, ttl_s: float) -> None:
        self.jobs, self.key, self.ttl_ms = jobs, key, int(ttl_s * 1000)
        self.token = uuid.uuid4().hex
        self.held = False
        self.lost = False

    async def acquire(self) -> None:
        """Waits while another attempt of the same job holds it (bounded by saq's timeout)."""
        pause = 0.05
        while not await self.jobs.redis.set(self.key, self.token, nx=True, px=self.ttl_ms):
            await asyncio.sleep(pause)
            pause = min(pause * 2, self.ttl_ms / 4000)
        self.held = True

    async def owned(self) -> bool:
        return await self.jobs.redis.get(self.key) == self.token.encode()

    async def renew(self) -> bool:
        ok = await self.jobs._renew(keys=[self.key], args=[self.token, self.ttl_ms])
        return bool(ok)

    async def release(self) -> None:
        if self.held:
            self.held = False
            await self.jobs._release(keys=[self.key], args=[self.token])


class _KindQueue(RedisQueue):
    """saq's Redis queue for one kind, with Engram's retry policy, counters and dead letters."""

    def __init__(self, redis: aioredis.Redis, jobs: JobQueue, kind: str, spec: JobKind) -> None:
        super().__init__(redis, name=f"{jobs.namespace}.{kind}")
        # Not `self.jobs`: that would hide saq's Queue.jobs() method, which its abort check calls.
        self.owner, self.kind, self.spec = jobs, kind, spec

    async def sweep(self, lock: int = 60, abort: float = 5.0) -> list[str]:
        """saq's sweep (re-queue the jobs in `active` whose worker died) with two changes.

        1. saq's worker moves a job to `active` (BLMOVE) and marks it ACTIVE a moment later;
           saq 0.26.4 sweeps a job caught in between (status still QUEUED) at once and re-queues
           it while it starts to run. Here such a job is looked at again after
           `dequeue_grace_s` and swept only if it is still QUEUED and still in `active`.
        2. saq waits `abort` (5 s) for each swept job's worker to confirm, one job after the
           other; here `sweep_abort_wait_s` (the lease makes a short wait safe).
        """
        pairs = await self.owner._sweep_scan(keys=[self._sweep, self._active], args=[lock])
        stuck: list[Job] = []
        suspects: list[Job] = []
        for job_id, raw in pairs or []:
            job = self.deserialize(raw) if raw else None
            if job is None:  # the record expired or was deleted: drop the id
                async with self.redis.pipeline(transaction=True) as pipe:
                    pipe.lrem(self._active, 0, job_id).zrem(self._incomplete, job_id)
                    await pipe.execute()
            elif job.status == Status.QUEUED:
                suspects.append(job)
            elif job.status != Status.ACTIVE or job.stuck:
                stuck.append(job)
        if suspects:
            await asyncio.sleep(self.owner.dequeue_grace_s)
            for seen in suspects:
                job = await self._get_job_by_id(seen.id)
                # unchanged record (same touch, same attempts) and still in `active`: its worker
                # died between BLMOVE and the update. A changed one was picked up (maybe again).
                if (
                    job is not None
                    and job.status == Status.QUEUED
                    and (job.touched, job.attempts) == (seen.touched, seen.attempts)
                    and await self.redis.lpos(self._active, job.id) is not None
                ):
                    stuck.append(job)
        # all at once, not one after the other as saq does (each waits sweep_abort_wait_s)
        await asyncio.gather(*(self._sweep_job(job) for job in stuck))
        return [job.id for job in stuck]

    async def _sweep_job(self, job: Job) -> None:
        log.info("sweeping job %s (attempt %s, %s)", job.key, job.attempts, job.status.value)
        await self.abort(job, error=SWEPT)
        # its worker is gone (the usual case: times out), or the record is (RuntimeError)
        with contextlib.suppress(TimeoutError, RuntimeError):
            await job.refresh(self.owner.sweep_abort_wait_s)
        if job.retryable:
            await self.retry(job, error=SWEPT)
        else:
            await self.finish(job, Status.ABORTED, error=SWEPT)

    async def retry(self, job: Job, error: str | None) -> None:
        if error in (CANCELLED, SWEPT):  # worker shut down or died: retried at once
            delay, reason = 0.0, _REASONS[error]
            if error == SWEPT:
                await self.redis.hincrby(self.owner.stats_key(self.kind), "failed", 1)
        else:
            delay = self.spec.retry.delay_after(job.attempts)
            reason = job.meta.pop("last_error", None) or _summary(error)
            await self.redis.hincrby(self.owner.stats_key(self.kind), "failed", 1)
        history = job.meta.setdefault("history", [])
        history.append(
            {
                "attempt": job.attempts,
                "error": reason,
                "retry_in_s": round(delay, 3),
                "at": round(time.time(), 3),
            }
        )
        del history[:-HISTORY_LEN]
        job.retry_backoff = False
        job.retry_delay = delay
        await super().retry(job, error)

    async def finish(
        self,
        job: Job,
        status: Status,
        *,
        result: Any = None,
        error: str | None = None,
        **kwargs: Any,
    ) -> None:
        if status == Status.FAILED or (
            status == Status.ABORTED and error == SWEPT and not job.retryable
        ):
            # before saq's finish: a worker killed in between must not lose the dead letter
            await self._dead_letter(job, error)
        await super().finish(job, status, result=result, error=error, **kwargs)
        # Counters are not in saq's MULTI: a kill between the two loses one count (or, above,
        # a re-run counts twice). Good enough for a status page, not for accounting.
        stats = self.owner.stats_key(self.kind)
        if status == Status.COMPLETE:
            await self.redis.hincrby(stats, "done", 1)
        elif status == Status.ABORTED and error != SWEPT:
            await self.redis.hincrby(stats, "aborted", 1)
        if status in (Status.COMPLETE, Status.FAILED) and await self.redis.getdel(
            self.owner.rerun_key(job.key)
        ):
            await self.owner._submit(self.kind, job.key, job.kwargs or {})

    async def _dead_letter(self, job: Job, error: str | None) -> None:
        kwargs = job.kwargs or {}
        last = _REASONS.get(error or "") or job.meta.pop("last_error", None) or _summary(error)
        entry = {
            "job_id": job.key,
            "kind": self.kind,
            "ids": kwargs.get("ids", []),
            "payload": kwargs.get("payload", {}),
            "attempts": job.attempts,
            "max_attempts": job.retries,
            "error": last,
            "traceback": (error or "")[-ERROR_LEN:],
            "history": job.meta.get("history", []),
            "dead_at": round(time.time(), 3),
        }
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.owner.dead_key(self.kind), job.key, json.dumps(entry))
            pipe.hincrby(self.owner.stats_key(self.kind), "failed", 1)
            pipe.hincrby(self.owner.stats_key(self.kind), "dead_total", 1)
            await pipe.execute()
        log.warning("job %s is dead after %s attempts: %s", job.key, job.attempts, last)


class JobQueue:
    """Enqueue, status, counters and dead letters; shared by the API and the workers."""

    def __init__(
        self,
        redis_url: str,
        kinds: Mapping[str, JobKind],
        *,
        namespace: str = "engram",
        sweep_abort_wait_s: float = 1.0,
        dequeue_grace_s: float = 2.0,
        max_connections: int = 256,
    ) -> None:
        # redis-py 8 caps a pool at 100 connections by default and raises when it is exhausted;
        # every idle worker slot holds one in BLMOVE.
        self.redis = aioredis.from_url(redis_url, max_connections=max_connections)
        self.namespace = namespace
        self.kinds = dict(kinds)
        self.sweep_abort_wait_s = sweep_abort_wait_s
        self.dequeue_grace_s = dequeue_grace_s
        self.queues = {k: _KindQueue(self.redis, self, k, spec) for k, spec in self.kinds.items()}
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self._sweep_scan = self.redis.register_script(_SWEEP_SCAN)

    def stats_key(self, kind: str) -> str:
        return f"{self.namespace}:jobs:stats:{kind}"

    def dead_key(self, kind: str) -> str:
        return f"{self.namespace}:jobs:dead:{kind}"

    def lease_key(self, job_id: str) -> str:
        return f"{self.namespace}:jobs:lease:{job_id}"

    def rerun_key(self, job_id: str) -> str:
        return f"{self.namespace}:jobs:rerun:{job_id}"

    async def connect(self) -> None:
        for queue in self.queues.values():
            await queue.connect()

    async def close(self) -> None:
        """Closes connections; a server that is already gone is not an error here."""
        for queue in self.queues.values():
            with contextlib.suppress(aioredis.ConnectionError, OSError):
                await queue._pubsub.close()
        await self.redis.aclose()

    def _queue(self, job_id: str) -> tuple[str, _KindQueue | None]:
        kind = job_id.split(":", 1)[0]
        return kind, self.queues.get(kind)

    async def _submit(
        self, kind: str, job_id: str, kwargs: dict[str, Any], delay_s: float = 0.0
    ) -> Job | None:
        spec = self.kinds[kind]
        return await self.queues[kind].enqueue(
            FUNCTION,
            key=job_id,
            kwargs=kwargs,
            timeout=spec.timeout_s,
            heartbeat=spec.heartbeat_s,
            retries=spec.retry.max_attempts,
            ttl=spec.result_ttl_s,
            scheduled=int(time.time() + delay_s) if delay_s > 0 else 0,
        )

    async def enqueue(
        self,
        kind: str,
        ids: Sequence[str | int] = (),
        payload: Mapping[str, Any] | None = None,
        *,
        dedupe: bool = True,
        delay_s: float = 0.0,
    ) -> Enqueued:
        """Adds a job; with ids and dedupe, a job with the same kind and ids is coalesced."""
        if kind not in self.kinds:
            raise KeyError(f"unknown job kind {kind!r}")
        id_list = [str(i) for i in ids]
        key = "/".join(id_list) if dedupe and id_list else uuid.uuid4().hex
        job_id = f"{kind}:{key}"
        kwargs = {"ids": id_list, "payload": dict(payload or {})}
        if await self._submit(kind, job_id, kwargs, delay_s):
            return Enqueued(job_id, created=True)
        existing = await self.queues[kind].job(job_id)
        if existing is None or existing.status not in (Status.ACTIVE, Status.ABORTING):
            return Enqueued(job_id, created=False)  # pending (queued or waiting for a retry)
        # Running: it may have read the state before the change that asked for this job. Flag a
        # rerun, then try again: the attempt may have finished (and missed the flag) meanwhile.
        await self.redis.set(self.rerun_key(job_id), b"1", ex=86_400)
        if await self._submit(kind, job_id, kwargs, delay_s):
            await self.redis.delete(self.rerun_key(job_id))
            return Enqueued(job_id, created=True)
        return Enqueued(job_id, created=False, rerun=True)

    async def status(self, job_id: str) -> JobStatus:
        kind, queue = self._queue(job_id)
        if queue is None:
            return JobStatus(job_id, kind, "unknown")
        job = await queue.job(job_id)
        if job is None:
            raw = await self.redis.hget(self.dead_key(kind), job_id)
            if raw is None:
                return JobStatus(job_id, kind, "unknown")
            dead = json.loads(raw)
            return JobStatus(
                job_id,
                kind,
                "dead",
                dead["attempts"],
                dead["max_attempts"],
                finished_at=dead["dead_at"],
                error=dead["error"],
            )
        retry_at = None
        if job.status in (Status.NEW, Status.QUEUED):
            score = await self.redis.zscore(queue._incomplete, job.id)
            state = "queued"
            if score and score > time.time():
                state, retry_at = "scheduled", score
        elif job.status in (Status.ACTIVE, Status.ABORTING):
            state = "running"
        elif job.status == Status.COMPLETE:
            state = "done"
        elif job.status == Status.FAILED or (job.error == SWEPT and not job.retryable):
            state = "dead"
        else:
            state = "aborted"
        last_error = job.meta.get("last_error") or _summary(job.error)
        return JobStatus(
            job_id,
            kind,
            state,
            job.attempts,
            job.retries,
            _s(job.queued),
            _s(job.started),
            _s(job.completed),
            retry_at,
            last_error,
            job.result,
        )

    async def stats(self) -> dict[str, dict[str, Any]]:
        """Per kind: pending, scheduled (waiting for a retry), in_flight, done, failed, dead and
        the age in seconds of the job at the head of the pending list."""
        out: dict[str, dict[str, Any]] = {}
        for kind, queue in self.queues.items():
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.llen(queue._queued)
                pipe.llen(queue._active)
                pipe.zcard(queue._incomplete)
                pipe.hgetall(self.stats_key(kind))
                pipe.hlen(self.dead_key(kind))
                pipe.lindex(queue._queued, 0)
                pending, in_flight, incomplete, counters, dead, head = await pipe.execute()
            oldest = None
            if head:
                head_job = queue.deserialize(await self.redis.get(head))
                if head_job and head_job.queued:
                    oldest = max(0.0, time.time() - head_job.queued / 1000)
            counters = {k.decode(): int(v) for k, v in counters.items()}
            out[kind] = {
                "pending": pending,
                "scheduled": max(0, incomplete - pending - in_flight),
                "in_flight": in_flight,
                "done": counters.get("done", 0),
                "failed": counters.get("failed", 0),
                "aborted": counters.get("aborted", 0),
                "dead": dead,
                "oldest_pending_age_s": oldest,
            }
        return out

    async def dead_letters(self, kind: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        for k in [kind] if kind else list(self.kinds):
            raw = await self.redis.hgetall(self.dead_key(k))
            entries += [json.loads(v) for v in raw.values()]
        entries.sort(key=lambda e: e["dead_at"], reverse=True)
        return entries[:limit]

    async def requeue_dead(self, job_id: str) -> Enqueued | None:
        """Runs a dead job again with fresh attempts; None when there is no such dead letter."""
        kind, _ = self._queue(job_id)
        raw = await self.redis.hget(self.dead_key(kind), job_id)
        if raw is None:
            return None
        dead = json.loads(raw)
        job = await self._submit(kind, job_id, {"ids": dead["ids"], "payload": dead["payload"]})
        if job:
            await self.redis.hdel(self.dead_key(kind), job_id)
        return Enqueued(job_id, created=job is not None)


class _Worker(Worker):
    SIGNALS: list = []  # never touch the host's (uvicorn's) signal handlers


class JobRunner:
    """Runs `concurrency` slots per kind in the current event loop until `stop()`."""

    def __init__(
        self,
        jobs: JobQueue,
        *,
        concurrency: int = 4,
        kinds: Sequence[str] | None = None,
        deps: Any = None,
        sweep_s: int = 10,
        dequeue_timeout_s: float = 1.0,
        shutdown_grace_s: int = 10,
    ) -> None:
        self.jobs = jobs
        self.concurrency = concurrency
        self.kinds = list(kinds or jobs.kinds)
        self.deps = deps
        self.sweep_s = sweep_s
        self.dequeue_timeout_s = dequeue_timeout_s
        self.shutdown_grace_s = shutdown_grace_s
        self.id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self._workers: list[_Worker] = []
        self._tasks: list[asyncio.Task] = []

    async def start(self) -> None:
        await self.jobs.connect()
        for kind in self.kinds:
            spec = self.jobs.kinds[kind]
            worker = _Worker(
                self.jobs.queues[kind],
                functions=[(FUNCTION, self._dispatcher(kind, spec))],
                id=f"{self.id}:{kind}",
                concurrency=spec.concurrency or self.concurrency,
                # saq turns these into SETEX seconds: integers only
                timers={"sweep": int(self.sweep_s), "schedule": 1, "abort": 1, "worker_info": 10},
                dequeue_timeout=self.dequeue_timeout_s,
                shutdown_grace_period_s=self.shutdown_grace_s,
            )
            self._workers.append(worker)
            self._tasks.append(asyncio.create_task(worker.start(), name=f"jobs:{kind}"))

    async def stop(self) -> None:
        """In-flight attempts get `shutdown_grace_s` to finish, then are cancelled and re-queued."""
        for worker in self._workers:
            # saq's stop() also waits for its upkeep loops, which notice the stop only after
            # their next sleep (sweep_s, 10 s for worker_info): end them now. saq names only
            # the job slots "process"; an upkeep loop returns quietly when cancelled.
            worker.event.set()
            for task in list(worker.tasks):
                if task.get_name() != "process":
                    task.cancel()
        await asyncio.gather(*(w.stop() for w in self._workers), return_exceptions=True)
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._workers, self._tasks = [], []

    def _dispatcher(self, kind: str, spec: JobKind) -> Callable[..., Awaitable[Any]]:
        jobs = self.jobs

        async def run(ctx: dict[str, Any], *, ids: list[str], payload: dict[str, Any]) -> Any:
            job: Job = ctx["job"]
            lease = _Lease(jobs, jobs.lease_key(job.key), spec.heartbeat_s)
            done = asyncio.Event()
            heartbeat = asyncio.create_task(
                _heartbeat(job, lease, asyncio.current_task(), spec, done)
            )
            try:
                await lease.acquire()
                context = JobContext(
                    job.key,
                    kind,
                    ids,
                    payload,
                    job.attempts,
                    job.retries,
                    jobs.redis,
                    self.deps,
                    lease,
                )
                return await spec.handler(context)
            except asyncio.CancelledError:
                if lease.lost:
                    raise LeaseLost(f"lease of {job.key} expired while it ran") from None
                raise
            except Exception as exc:
                job.meta["last_error"] = f"{type(exc).__name__}: {exc}"[:500]
                raise
            finally:
                # Stop the beat by flag, not only by cancellation: a library that swallows one
                # CancelledError (seen under load) would otherwise leave an orphan heartbeat
                # renewing the lease forever, and every later attempt would wait for it.
                done.set()
                with contextlib.suppress(Exception):
                    await lease.release()  # held=False first: a stray beat cannot renew it
                heartbeat.cancel()
                await asyncio.wait([heartbeat], timeout=spec.heartbeat_s)

        return run


async def _heartbeat(
    job: Job, lease: _Lease, task: asyncio.Task | None, spec: JobKind, done: asyncio.Event
) -> None:
    """Touches saq's job record (its heartbeat) and renews the lease every heartbeat_s / 3,
    until the attempt is `done`."""
    interval = max(spec.heartbeat_s / 3, 0.05)
    while not done.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), interval)
        if done.is_set():
            return
        try:
            if lease.held and not await lease.renew():
                lease.lost = True
                if task is not None:
                    task.cancel()
                return
            await job.update()
        except asyncio.CancelledError:
            raise
        except Exception:  # a Redis blip: the next beat tries again
            log.exception("heartbeat of job %s failed", job.key)


async def serve(runner: JobRunner, stop: asyncio.Event) -> None:
    """For `python -m app.worker`: runs until `stop` is set (by the caller's signal handler)."""
    await runner.start()
    try:
        await stop.wait()
    finally:
        await runner.stop()
        await runner.jobs.close()
