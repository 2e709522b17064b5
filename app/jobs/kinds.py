"""Job kind names and the enqueue helpers the domains call: a leaf the domains may import.

Which handler runs each kind is wired at the composition root (`app.wiring.jobs`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from app.jobs.queue import JobQueue

EMBED = "embed"
ENRICH = "enrich"
SYNC = "sync"
REEMBED = "reembed"
REMEMBER = "remember"
CONSOLIDATE = "consolidate"
REFLECT = "reflect"
RAW_RETENTION = "raw_retention"
LIFECYCLE = "lifecycle"
WINDOWS = "windows"
WEBHOOK = "webhook"
ARTIFACT_INDEX = "artifact_index"

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


async def enqueue_embedding(jobs: JobQueue, user_id: str, memory_ids: Sequence[str]) -> str:
    """Queues one embed job for these memories of one user; returns its job id."""
    ids = list(memory_ids)
    enqueued = await jobs.enqueue(EMBED, [user_id, batch_key(ids)], {"memory_ids": ids})
    return enqueued.job_id


async def enqueue_windows(jobs: JobQueue, user_id: str, memory_ids: Sequence[str]) -> list[str]:
    """Queues windows jobs (JOB_BATCH memories each) for these just embedded memories of one
    user (app/memories/windows.py); returns their job ids."""
    job_ids = []
    for ids in batches(memory_ids):
        enqueued = await jobs.enqueue(WINDOWS, [user_id, batch_key(ids)], {"memory_ids": ids})
        job_ids.append(enqueued.job_id)
    return job_ids


def enrichment_enabled(jobs: JobQueue | None) -> bool:
    """Enrichment runs where its job kind is registered (ENRICHMENT_ENABLED)."""
    return jobs is not None and ENRICH in jobs.kinds


async def enqueue_enrichment(
    jobs: JobQueue | None, user_id: str, memory_ids: Sequence[str], *, force: bool = False
) -> list[str]:
    """Queues enrichment jobs (JOB_BATCH memories each) for these memories of one user; returns
    their job ids, none when enrichment is disabled (or this process has no queue).

    Forced jobs never coalesce with ordinary ones, which would skip memories already enriched.
    """
    if jobs is None or not enrichment_enabled(jobs):
        return []
    job_ids = []
    for ids in batches(memory_ids):
        key = ("force-" if force else "") + batch_key(ids)
        enqueued = await jobs.enqueue(ENRICH, [user_id, key], {"memory_ids": ids, "force": force})
        job_ids.append(enqueued.job_id)
    return job_ids


async def enqueue_artifact_index(
    jobs: JobQueue, user_id: str, agent_id: str | None, memory_id: str
) -> str:
    """Queues the search index of a memory's text artifacts; returns the job id."""
    enqueued = await jobs.enqueue(
        ARTIFACT_INDEX, [user_id, memory_id], {"agent_id": agent_id, "memory_id": memory_id}
    )
    return enqueued.job_id
