"""Queueing enrichment work (a leaf module, so that the embed job can chain into enrichment)."""

import hashlib
from collections.abc import Sequence

from app.jobs.queue import JobQueue

ENRICH = "enrich"


def enrich_job_key(memory_ids: Sequence[str], force: bool) -> str:
    """One memory: its id; several: a digest of their ids. Forced jobs never coalesce with
    ordinary ones, which would skip memories already enriched."""
    digest = hashlib.sha1("/".join(sorted(memory_ids)).encode()).hexdigest()[:20]
    key = memory_ids[0] if len(memory_ids) == 1 else f"batch-{digest}"
    return f"force-{key}" if force else key


def enrichment_enabled(jobs: JobQueue | None) -> bool:
    """Enrichment runs where its job kind is registered (ENRICHMENT_ENABLED)."""
    return jobs is not None and ENRICH in jobs.kinds


async def enqueue_enrichment(
    jobs: JobQueue | None, user_id: str, memory_ids: Sequence[str], *, force: bool = False
) -> str | None:
    """Queues one enrichment job for these memories of one user; returns its job id, or None
    when enrichment is disabled (or this process has no queue)."""
    if not enrichment_enabled(jobs) or not memory_ids:
        return None
    ids = list(memory_ids)
    payload = {"memory_ids": ids, "force": force}
    enqueued = await jobs.enqueue(ENRICH, [user_id, enrich_job_key(ids, force)], payload)
    return enqueued.job_id
