"""saq's Redis queue for one job kind, with Engram's changes; each override says why it exists.

saq (`saq==0.26.4`, installed *without* its `[redis]` extra, whose `redis<8` cap conflicts with
falkordb's `redis>=8`) supplies one queue per job kind: lists `queued` and `active`, a sorted set
`incomplete`, one JSON record per job, atomic BLMOVE hand-off, dedupe by job key, retries with a
per-job delay, timeouts, heartbeats and a sweeper that re-queues the jobs of a worker that died.

Timing of a killed worker's job: the first sweep (every `sweep_s`, by any live worker) after its
heartbeat is older than `heartbeat_s` (or its attempt older than `timeout_s`) re-queues it at
once: re-delivered after heartbeat_s .. heartbeat_s + sweep_s, + sweep_abort_wait_s. It counts
as an attempt. Retry delays have a resolution of 1 s (saq's scheduler polls once a second).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis
from saq import Job, Status
from saq.queue.redis import RedisQueue

from app.jobs.spec import JobKeys, JobKind, duration_field, summary

log = logging.getLogger(__name__)

FUNCTION = "run"  # the one saq function of every kind queue; it dispatches to the kind's handler
SWEPT = "swept"  # saq's error for a job whose worker stopped heart-beating (or timed out)
CANCELLED = "cancelled"  # saq's error for a job cancelled by a worker shutting down
REASONS = {
    SWEPT: "swept: its worker stopped heart-beating (died, stalled or timed out)",
    CANCELLED: "cancelled: its worker shut down",
}
HISTORY_LEN = 10
ERROR_LEN = 4000

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

# Submits a job again (kind, job id, kwargs): the rerun a running job was asked for.
Resubmit = Callable[[str, str, dict[str, Any]], Awaitable[Any]]


class KindQueue(RedisQueue):
    """One kind's queue: Engram's retry policy, counters, dead letters and a safer sweep."""

    def __init__(
        self,
        redis: aioredis.Redis,
        keys: JobKeys,
        kind: str,
        spec: JobKind,
        resubmit: Resubmit,
        *,
        sweep_abort_wait_s: float,
        dequeue_grace_s: float,
    ) -> None:
        super().__init__(redis, name=f"{keys.namespace}.{kind}")
        # Not `self.jobs`: that would hide saq's Queue.jobs() method, which its abort check calls.
        self.keys, self.kind, self.spec, self.resubmit = keys, kind, spec, resubmit
        self.sweep_abort_wait_s = sweep_abort_wait_s
        self.dequeue_grace_s = dequeue_grace_s
        self._sweep_scan = redis.register_script(_SWEEP_SCAN)

    @property
    def queued_key(self) -> str:
        return self._queued

    @property
    def active_key(self) -> str:
        return self._active

    @property
    def incomplete_key(self) -> str:
        return self._incomplete

    async def sweep(self, lock: int = 60, abort: float = 5.0) -> list[str]:
        """saq's sweep (re-queue the jobs in `active` whose worker died) with two changes.

        1. saq's worker moves a job to `active` (BLMOVE) and marks it ACTIVE a moment later;
           saq 0.26.4 sweeps a job caught in between (status still QUEUED) at once and re-queues
           it while it starts to run. Here such a job is looked at again after
           `dequeue_grace_s` and swept only if it is still QUEUED and still in `active`.
        2. saq waits `abort` (5 s) for each swept job's worker to confirm, one job after the
           other; here `sweep_abort_wait_s` (the lease makes a short wait safe).
        """
        pairs = await self._sweep_scan(keys=[self._sweep, self._active], args=[lock])
        stuck: list[Job] = []
        suspects: list[Job] = []
        for job_id, raw in pairs or []:
            job = self.deserialize(raw) if raw else None
            if job is None:  # the record expired or was deleted: drop the id
                async with self.redis.pipeline(transaction=True) as pipe:
                    pipe.lrem(self._active, 0, job_id)
                    pipe.zrem(self._incomplete, job_id)
                    await pipe.execute()
            elif job.status == Status.QUEUED:
                suspects.append(job)
            elif job.status != Status.ACTIVE or job.stuck:
                stuck.append(job)
        if suspects:
            stuck += await self._still_stuck(suspects)
        # all at once, not one after the other as saq does (each waits sweep_abort_wait_s)
        await asyncio.gather(*(self._sweep_job(job) for job in stuck))
        return [job.id for job in stuck]

    async def _still_stuck(self, suspects: list[Job]) -> list[Job]:
        """The suspects whose record is unchanged (same touch, same attempts) and still in
        `active` after the grace: their worker died between BLMOVE and the update. A changed
        one was picked up (maybe again)."""
        await asyncio.sleep(self.dequeue_grace_s)
        stuck = []
        for seen in suspects:
            job = await self._get_job_by_id(seen.id)
            if (
                job is not None
                and job.status == Status.QUEUED
                and (job.touched, job.attempts) == (seen.touched, seen.attempts)
                and await self.redis.lpos(self._active, job.id) is not None
            ):
                stuck.append(job)
        return stuck

    async def _sweep_job(self, job: Job) -> None:
        log.info("sweeping job %s (attempt %s, %s)", job.key, job.attempts, job.status.value)
        await self.abort(job, error=SWEPT)
        # its worker is gone (the usual case: times out), or the record is (RuntimeError)
        with contextlib.suppress(TimeoutError, RuntimeError):
            await job.refresh(self.sweep_abort_wait_s)
        if job.retryable:
            await self.retry(job, error=SWEPT)
        else:
            await self.finish(job, Status.ABORTED, error=SWEPT)

    async def retry(self, job: Job, error: str | None) -> None:
        """saq's retry, with Engram's backoff (saq's is full jitter) and an attempt history."""
        reason: str | None
        if error in (CANCELLED, SWEPT):  # worker shut down or died: retried at once
            delay, reason = 0.0, REASONS[error]
            if error == SWEPT:
                await self.redis.hincrby(self.keys.stats(self.kind), "failed", 1)
        else:
            delay = self.spec.retry.delay_after(job.attempts)
            reason = job.meta.pop("last_error", None) or summary(error)
            await self.redis.hincrby(self.keys.stats(self.kind), "failed", 1)
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
        """saq's finish, plus dead letters, counters and the rerun a running job was asked for."""
        if status == Status.FAILED or (
            status == Status.ABORTED and error == SWEPT and not job.retryable
        ):
            # before saq's finish: a worker killed in between must not lose the dead letter
            await self._dead_letter(job, error)
        await super().finish(job, status, result=result, error=error, **kwargs)
        # Counters are not in saq's MULTI: a kill between the two loses one count (or, above,
        # a re-run counts twice). Good enough for a status page, not for accounting.
        stats = self.keys.stats(self.kind)
        if status == Status.COMPLETE:
            await self.redis.hincrby(stats, "done", 1)
            await self._record_duration(job)
        elif status == Status.ABORTED and error != SWEPT:
            await self.redis.hincrby(stats, "aborted", 1)
        if status in (Status.COMPLETE, Status.FAILED) and await self.redis.getdel(
            self.keys.rerun(job.key)
        ):
            await self.resubmit(self.kind, job.key, job.kwargs or {})

    async def _record_duration(self, job: Job) -> None:
        """The successful attempt's time, from its start to its finish, into the histogram."""
        if not job.started or not job.completed:
            return
        seconds = max(0.0, (job.completed - job.started) / 1000)
        key = self.keys.durations(self.kind)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hincrby(key, duration_field(seconds), 1)
            pipe.hincrby(key, "count", 1)
            pipe.hincrbyfloat(key, "sum", seconds)
            await pipe.execute()

    async def _dead_letter(self, job: Job, error: str | None) -> None:
        kwargs = job.kwargs or {}
        last = REASONS.get(error or "") or job.meta.pop("last_error", None) or summary(error)
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
            pipe.hset(self.keys.dead(self.kind), job.key, json.dumps(entry))
            pipe.hincrby(self.keys.stats(self.kind), "failed", 1)
            pipe.hincrby(self.keys.stats(self.kind), "dead_total", 1)
            await pipe.execute()
        log.warning("job %s is dead after %s attempts: %s", job.key, job.attempts, last)
