"""Work that starts itself: the start-up backlog scan and periodic jobs."""

import asyncio
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from app.jobs.kinds import EMBED, enqueue_embedding, enqueue_enrichment, enrichment_enabled
from app.models import to_iso, utc_now
from app.storage.graph import enrichment

log = logging.getLogger(__name__)

BACKLOG_PAGE = 32  # one embed job per page: a provider-sized batch
# Ids read per scan query: each query orders the whole label by id, so reading them
# BACKLOG_PAGE at a time made queuing a large backlog far slower than embedding it.
SCAN_PAGE = 4096


async def enqueue_backlog(deps: Any) -> int:
    """Queues an embed job for every memory whose embedding is not done, and enrichment for
    embedded memories whose enrichment is pending; returns the memories queued for embedding.

    Jobs are deduplicated by their ids, so a restart that finds jobs still queued adds nothing.
    (Memories not yet embedded are enriched when their embed job finishes.)
    """
    graph = deps.stores.graph
    queued = await _queue_pages(
        lambda after: graph.unembedded(after=after, limit=SCAN_PAGE),
        lambda user_id, ids: enqueue_embedding(deps.jobs, user_id, ids),
        "embedding",
    )
    if enrichment_enabled(deps.jobs):
        await _queue_pages(
            lambda after: enrichment.unenriched(graph, after=after, limit=SCAN_PAGE),
            lambda user_id, ids: enqueue_enrichment(deps.jobs, user_id, ids),
            "enrichment",
        )
    return queued


async def sweep_pending_embeddings(deps: Any) -> int:
    """Queues embed jobs for memories left pending with no job: a write whose graph write
    committed but whose enqueue failed (answered 503 while FalkorDB restarted), or made where
    no queue runs. Only while no embed job waits or runs, so every pending memory old enough
    has none (a busy queue is looked at again next time); returns the memories queued."""
    if await _embed_jobs_waiting(deps.jobs):
        return 0
    age = timedelta(seconds=deps.settings.embedding_sweep_min_age_s)
    before = to_iso(utc_now() - age)
    graph = deps.stores.graph
    return await _queue_pages(
        lambda after: graph.stale_pending(before=before, after=after, limit=SCAN_PAGE),
        lambda user_id, ids: enqueue_embedding(deps.jobs, user_id, ids),
        "embedding (pending without a job)",
    )


async def _embed_jobs_waiting(jobs: Any) -> bool:
    counts = (await jobs.stats())[EMBED]
    return bool(counts["pending"] or counts["scheduled"] or counts["in_flight"])


async def _queue_pages(
    fetch: Callable[[str], Awaitable[list[tuple[str, str]]]],
    enqueue: Callable[[str, list[str]], Awaitable[Any]],
    what: str,
) -> int:
    """Jobs of BACKLOG_PAGE memories of one user, from (user_id, memory_id) rows in id order.

    Ids are gathered per user across pages: pages mix users, and a job per user per page would
    embed a few texts at a time (a 100k backlog of 10 users became 22k jobs of ~3 texts).
    """
    queued, after, waiting = 0, "", defaultdict(list)
    while page := await fetch(after):
        for user_id, memory_id in page:
            waiting[user_id].append(memory_id)
            if len(waiting[user_id]) == BACKLOG_PAGE:
                await enqueue(user_id, waiting.pop(user_id))
                queued += BACKLOG_PAGE
        after = page[-1][1]
    for user_id, ids in sorted(waiting.items()):
        await enqueue(user_id, ids)
        queued += len(ids)
    if queued:
        log.info("backlog scan queued %d memories for %s", queued, what)
    return queued


async def run_every(interval_s: float, action: Callable[[], Awaitable[Any]]) -> None:
    """Calls `action` every interval (first after one interval); a failure is logged, not fatal."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            await action()
        except Exception:  # the schedule must outlive one failed tick; the error is logged
            log.exception("scheduled action failed")
