"""The job records of an erased user: a record keeps its job's payload (a /remember job's, the
conversation turns) for a day after the job ends, and a dead letter until it is requeued.

Every job of a user's data has the user's id as its first id (job id `{kind}:{user_id}/…`),
so the records are found by key, and each is confirmed by the ids it carries. That includes the
webhook deliveries of the user's events (`webhook:{user_id}/{target}/{event}`): the erased
user's events still queued or waiting for a retry are not delivered, and their dead letters go.
A webhook dead letter from before the user's id came first is known by its event's `user_id`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Sequence
from typing import Any

from saq import Job, Status
from saq.job import TERMINAL_STATUSES

from app.jobs.queue import JobQueue
from app.jobs.saq_queue import KindQueue

log = logging.getLogger(__name__)

ERASED = "erased: its user's data was erased"
# A running job's worker sees an abort within about two seconds (saq polls once a second).
ABORT_WAIT_S = 15.0
ABORT_POLL_S = 0.1
GLOB_SPECIAL = re.compile(r"([*?\[\]\\])")


async def erase_user_jobs(
    jobs: JobQueue, user_id: str, holding: Sequence[str] | None = None
) -> int:
    """Deletes the user's job records and dead letters (`holding`: only those whose payload
    holds one of these texts); a job not finished yet is aborted first, and waited for. Run it
    before the content is erased (a running /remember job would write it again) and after (for
    what jobs recorded meanwhile). Returns how many."""
    erased = 0
    for kind, queue in jobs.queues.items():
        erased += await _erase_records(jobs, queue, kind, user_id, holding)
        erased += await _erase_dead_letters(jobs, kind, user_id, holding)
    return erased


async def _erase_records(
    jobs: JobQueue, queue: KindQueue, kind: str, user_id: str, holding: Sequence[str] | None
) -> int:
    pattern = queue.job_id(f"{kind}:{_glob_escaped(user_id)}/*")
    erased = 0
    async for key in jobs.redis.scan_iter(match=pattern, count=500):
        raw = await jobs.redis.get(key)
        job = queue.deserialize(raw) if raw else None
        if raw is None or job is None:
            continue  # expired meanwhile
        if not _owned(job.kwargs or {}, user_id) or not _holds(raw, holding):
            continue
        await _forget(jobs, queue, job)
        erased += 1
    return erased


async def _forget(jobs: JobQueue, queue: KindQueue, job: Job) -> None:
    if job.status not in TERMINAL_STATUSES:
        await _abort(queue, job)
    async with jobs.redis.pipeline(transaction=True) as pipe:
        # saq's abort flag too: it names the job (the user's id) for a few seconds
        pipe.delete(job.id, job.abort_id, jobs.keys.lease(job.key), jobs.keys.rerun(job.key))
        pipe.lrem(queue.queued_key, 0, job.id)
        pipe.lrem(queue.active_key, 0, job.id)
        pipe.zrem(queue.incomplete_key, job.id)
        await pipe.execute()


async def _abort(queue: KindQueue, job: Job) -> None:
    """Aborts a job and waits until it has ended: a running job's worker holds the record and
    would write it back (and a retry would write the erased content again)."""
    running = job.status == Status.ACTIVE
    await queue.abort(job, error=ERASED)
    if not running:
        return  # saq's abort took it off the queue: no worker holds it
    deadline = time.monotonic() + ABORT_WAIT_S
    while time.monotonic() < deadline:
        current = await queue.job(job.key)
        if current is None or current.status in TERMINAL_STATUSES:
            return
        await asyncio.sleep(ABORT_POLL_S)
    log.warning("job %s did not end within %.0f s of its abort", job.key, ABORT_WAIT_S)


async def _erase_dead_letters(
    jobs: JobQueue, kind: str, user_id: str, holding: Sequence[str] | None
) -> int:
    dead_key = jobs.keys.dead(kind)
    doomed = [
        field
        for field, raw in (await jobs.redis.hgetall(dead_key)).items()
        if _owned(json.loads(raw), user_id) and _holds(raw, holding)
    ]
    if doomed:
        await jobs.redis.hdel(dead_key, *doomed)
    return len(doomed)


def _glob_escaped(text: str) -> str:
    return GLOB_SPECIAL.sub(r"\\\1", text)


def _owned(record: dict[str, Any], user_id: str) -> bool:
    ids = record.get("ids") or []
    if ids and ids[0] == user_id:
        return True
    event = (record.get("payload") or {}).get("event")
    return isinstance(event, dict) and event.get("user_id") == user_id


def _holds(raw: bytes | str, texts: Sequence[str] | None) -> bool:
    """Whether a JSON record holds one of the texts (None: any record)."""
    if texts is None:
        return True
    record = raw.decode() if isinstance(raw, bytes) else raw
    return any(t in record or json.dumps(t)[1:-1] in record for t in texts)
