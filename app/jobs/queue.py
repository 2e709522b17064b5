"""Engram's durable jobs on saq, in the Redis server that hosts FalkorDB: the queue's API.

* `JobQueue.enqueue(kind, ids, payload)`: the job id is `"{kind}:{ids joined by /}"`, so a second
  enqueue while the first is pending is a no-op; while it is *running*, a rerun flag makes it run
  once more after the running attempt (the running attempt may have read the old state).
* `status(job_id)` for operator-started jobs, counters per kind (`{ns}:jobs:stats:{kind}`) and
  dead letters (`{ns}:jobs:dead:{kind}`, job id -> JSON with the last error and the history).

The pieces around it: `spec` (job kinds, retry policy, what a handler gets), `saq_queue` (saq's
queue with Engram's changes), `lease` (one attempt at a time, the heartbeat), `runner` (the
worker slots), `kinds` (kind names and the enqueue helpers the domains use).

Redis keys (namespace "engram"): saq's `saq:{ns}.{kind}:*` and `saq:job:{ns}.{kind}:{job_id}`,
and ours under `{ns}:jobs:` (stats, dead, lease, rerun).
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
from saq import Job, Status

from app.jobs.saq_queue import FUNCTION, SWEPT, KindQueue
from app.jobs.spec import DURATION_BUCKETS, Enqueued, JobKeys, JobKind, JobStatus, summary


def _s(ms: int | float | None) -> float | None:
    return ms / 1000 if ms else None


def _histogram(stored: dict[bytes, bytes]) -> dict[str, Any]:
    raw = {key.decode(): value for key, value in stored.items()}
    buckets, running = [], 0
    for index, bound in enumerate(DURATION_BUCKETS):
        running += int(raw.get(str(index), 0))
        buckets.append((str(float(bound)), running))
    buckets.append(("+Inf", running + int(raw.get("inf", 0))))
    return {"buckets": buckets, "count": int(raw.get("count", 0)), "sum": float(raw.get("sum", 0))}


class JobQueue:
    """Enqueue, status, counters and dead letters; shared by the API and the workers."""

    def __init__(
        self,
        redis_url: str | aioredis.Redis,
        kinds: Mapping[str, JobKind],
        *,
        namespace: str = "engram",
        sweep_abort_wait_s: float = 1.0,
        dequeue_grace_s: float = 2.0,
        max_connections: int = 256,
    ) -> None:
        # redis-py 8 caps a pool at 100 connections by default and raises when it is exhausted;
        # every idle worker slot holds one in BLMOVE. A client passed in (a Sentinel-managed
        # one: app/storage/falkordb/address.py) is the queue's from now on: close() closes it.
        if isinstance(redis_url, str):
            self.redis = aioredis.from_url(redis_url, max_connections=max_connections)
        else:
            self.redis = redis_url
        self.namespace = namespace
        self.keys = JobKeys(namespace)
        self.kinds = dict(kinds)
        self.queues = {
            kind: KindQueue(
                self.redis,
                self.keys,
                kind,
                spec,
                self._submit,
                sweep_abort_wait_s=sweep_abort_wait_s,
                dequeue_grace_s=dequeue_grace_s,
            )
            for kind, spec in self.kinds.items()
        }

    async def connect(self) -> None:
        for queue in self.queues.values():
            await queue.connect()

    async def close(self) -> None:
        """Closes connections; a server that is already gone is not an error here."""
        for queue in self.queues.values():
            with contextlib.suppress(aioredis.ConnectionError, OSError):
                await queue._pubsub.close()
        await self.redis.aclose()

    def _queue(self, job_id: str) -> tuple[str, KindQueue | None]:
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
        await self.redis.set(self.keys.rerun(job_id), b"1", ex=86_400)
        if await self._submit(kind, job_id, kwargs, delay_s):
            await self.redis.delete(self.keys.rerun(job_id))
            return Enqueued(job_id, created=True)
        return Enqueued(job_id, created=False, rerun=True)

    async def status(self, job_id: str) -> JobStatus:
        kind, queue = self._queue(job_id)
        if queue is None:
            return JobStatus(job_id, kind, "unknown")
        job = await queue.job(job_id)
        if job is None:
            return await self._dead_status(kind, job_id)
        retry_at = None
        if job.status in (Status.NEW, Status.QUEUED):
            score = await self.redis.zscore(queue.incomplete_key, job.id)
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
        last_error = job.meta.get("last_error") or summary(job.error)
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

    async def payload(self, job_id: str) -> dict[str, Any] | None:
        """The payload a job was queued with, pending, done or dead; None if there is no such
        job (or it is gone with its result's TTL)."""
        kind, queue = self._queue(job_id)
        if queue is None:
            return None
        job = await queue.job(job_id)
        if job is not None:
            return dict((job.kwargs or {}).get("payload") or {})
        raw = await self.redis.hget(self.keys.dead(kind), job_id)
        return dict(json.loads(raw).get("payload") or {}) if raw is not None else None

    async def _dead_status(self, kind: str, job_id: str) -> JobStatus:
        raw = await self.redis.hget(self.keys.dead(kind), job_id)
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

    async def stats(self) -> dict[str, dict[str, Any]]:
        """Per kind: pending, scheduled (waiting for a retry), in_flight, done, failed, dead and
        the age in seconds of the job at the head of the pending list."""
        return {kind: await self._kind_stats(kind, queue) for kind, queue in self.queues.items()}

    async def _kind_stats(self, kind: str, queue: KindQueue) -> dict[str, Any]:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.llen(queue.queued_key)
            pipe.llen(queue.active_key)
            pipe.zcard(queue.incomplete_key)
            pipe.hgetall(self.keys.stats(kind))
            pipe.hlen(self.keys.dead(kind))
            pipe.lindex(queue.queued_key, 0)
            pending, in_flight, incomplete, counters, dead, head = await pipe.execute()
        oldest = None
        if head:
            head_job = queue.deserialize(await self.redis.get(head))
            if head_job and head_job.queued:
                oldest = max(0.0, time.time() - head_job.queued / 1000)
        counts = {k.decode(): int(v) for k, v in counters.items()}
        return {
            "pending": pending,
            "scheduled": max(0, incomplete - pending - in_flight),
            "in_flight": in_flight,
            "done": counts.get("done", 0),
            "failed": counts.get("failed", 0),
            "aborted": counts.get("aborted", 0),
            "dead": dead,
            "oldest_pending_age_s": oldest,
        }

    async def durations(self) -> dict[str, dict[str, Any]]:
        """Per kind, the times of its successful attempts: `buckets` (counts per bound of
        DURATION_BUCKETS, cumulative, "+Inf" last), `count` and `sum` (seconds)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for kind in self.queues:
                pipe.hgetall(self.keys.durations(kind))
            stored = await pipe.execute()
        return {kind: _histogram(raw) for kind, raw in zip(self.queues, stored, strict=True)}

    async def dead_letters(self, kind: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        for k in [kind] if kind else list(self.kinds):
            raw = await self.redis.hgetall(self.keys.dead(k))
            entries += [json.loads(v) for v in raw.values()]
        entries.sort(key=lambda e: e["dead_at"], reverse=True)
        return entries[:limit]

    async def requeue_dead(self, job_id: str) -> Enqueued | None:
        """Runs a dead job again with fresh attempts; None when there is no such dead letter."""
        kind, _ = self._queue(job_id)
        raw = await self.redis.hget(self.keys.dead(kind), job_id)
        if raw is None:
            return None
        dead = json.loads(raw)
        job = await self._submit(kind, job_id, {"ids": dead["ids"], "payload": dead["payload"]})
        if job:
            await self.redis.hdel(self.keys.dead(kind), job_id)
        return Enqueued(job_id, created=job is not None)
