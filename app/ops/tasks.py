"""Operator jobs: graph ↔ vector sync and re-embedding, with progress readable while they run."""

import json
import logging
from typing import Any

from app.jobs.queue import JobQueue
from app.jobs.spec import JobContext
from app.memories.tasks import EmbedDeps, embed_memories
from app.ops.sync import sync

log = logging.getLogger(__name__)

REEMBED_PAGE = 64


def progress_key(namespace: str, job_id: str) -> str:
    return f"{namespace}:jobs:progress:{job_id}"


async def read_progress(jobs: JobQueue, job_id: str) -> dict[str, Any] | None:
    """The progress an operator job has recorded so far, if any."""
    raw = await jobs.redis.get(progress_key(jobs.namespace, job_id))
    return json.loads(raw) if raw else None


async def sync_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `sync` jobs: payload {repair: bool}."""
    report = await sync(ctx.deps, repair=ctx.payload.get("repair", True))
    return report.as_dict()


async def reembed_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `reembed` jobs: payload {user_id?}. Resumes from its cursor after a crash."""
    deps: EmbedDeps = ctx.deps
    user_id = ctx.payload.get("user_id")
    key = progress_key(deps.jobs.namespace, ctx.job_id)
    progress = json.loads(await ctx.redis.get(key) or "null") or {"after": "", "embedded": 0}
    progress["total"] = await deps.stores.graph.count_memories(user_id)
    while page := await deps.stores.graph.page_of_memories(
        after=progress["after"], limit=REEMBED_PAGE, user_id=user_id
    ):
        for owner in sorted({m.user_id for m in page}):
            ids = [m.id for m in page if m.user_id == owner]
            progress["embedded"] += await embed_memories(deps, owner, ids, force=True)
        progress["after"] = page[-1].id
        await ctx.redis.set(key, json.dumps(progress), ex=7 * 86_400)
    progress["state"] = "done"
    await ctx.redis.set(key, json.dumps(progress), ex=7 * 86_400)
    return progress
