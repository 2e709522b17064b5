"""Work that starts itself: the start-up backlog scan and periodic jobs."""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from app.memories.tasks import enqueue_embedding

log = logging.getLogger(__name__)

BACKLOG_PAGE = 32  # one embed job per page: a provider-sized batch


async def enqueue_backlog(deps: Any) -> int:
    """Queues an embed job for every memory whose embedding is not done; returns memories queued.

    Jobs are deduplicated by their ids, so a restart that finds jobs still queued adds nothing.
    """
    queued, after = 0, ""
    while page := await deps.stores.graph.unembedded(after=after, limit=BACKLOG_PAGE):
        for user_id in sorted({owner for owner, _ in page}):
            ids = [memory_id for owner, memory_id in page if owner == user_id]
            await enqueue_embedding(deps.jobs, user_id, ids)
            queued += len(ids)
        after = page[-1][1]
    if queued:
        log.info("backlog scan queued %d memories for embedding", queued)
    return queued


async def run_every(interval_s: float, action: Callable[[], Awaitable[Any]]) -> None:
    """Calls `action` every interval (first after one interval); a failure is logged, not fatal."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            await action()
        except Exception:  # the schedule must outlive one failed tick; the error is logged
            log.exception("scheduled action failed")
