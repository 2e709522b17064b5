"""Queueing enrichment work (a leaf module, so that the embed job can chain into enrichment)."""

from collections.abc import Sequence

from app.jobs.queue import JobQueue, batch_key, batches

ENRICH = "enrich"


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
    if not enrichment_enabled(jobs):
        return []
    job_ids = []
    for ids in batches(memory_ids):
        key = ("force-" if force else "") + batch_key(ids)
        enqueued = await jobs.enqueue(ENRICH, [user_id, key], {"memory_ids": ids, "force": force})
        job_ids.append(enqueued.job_id)
    return job_ids
