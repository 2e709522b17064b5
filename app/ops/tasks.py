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
PROGRESS_TTL_S = 7 * 86_400


def progress_key(namespace: str, job_id: str) -> str:
    return f"{namespace}:jobs:progress:{job_id}"


async def read_progress(jobs: JobQueue, job_id: str) -> dict[str, Any] | None:
    """The progress an operator job has recorded so far, if any."""
    raw = await jobs.redis.get(progress_key(jobs.namespace, job_id))
    return json.loads(raw) if raw else None


async def sync_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `sync` jobs: payload {repair: bool}; progress: memories checked of total."""
    key = progress_key(ctx.deps.jobs.namespace, ctx.job_id)
    total = await ctx.deps.stores.graph.count_memories(None)

    async def checked(done: int) -> None:
        progress = {"done": done, "total": total, "unit": "memories checked"}
        await ctx.redis.set(key, json.dumps(progress), ex=PROGRESS_TTL_S)

    await checked(0)  # a job id is reused: the last run's progress must not show
    report = await sync(ctx.deps, repair=ctx.payload.get("repair", True), on_page=checked)
    await checked(report.checked_memories)
    return report.as_dict()


async def reembed_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `reembed` jobs: payload {user_id?, limit?, batch_size?, force?}. Resumes from
    its cursor after a crash. `force` false skips memories whose embedding is current."""
    deps: EmbedDeps = ctx.deps
    user_id, limit = ctx.payload.get("user_id"), ctx.payload.get("limit")
    page_size = int(ctx.payload.get("batch_size") or REEMBED_PAGE)
    force = bool(ctx.payload.get("force", True))
    key = progress_key(deps.jobs.namespace, ctx.job_id)
    progress = json.loads(await ctx.redis.get(key) or "null")
    if progress is None or progress.get("state") == "done":  # a finished run is not resumed
        progress = {"after": "", "embedded": 0, "done": 0, "unit": "memories re-embedded"}
    total = await deps.stores.graph.count_memories(user_id)
    progress["total"] = min(total, limit) if limit else total
    while progress["done"] < progress["total"] and (
        page := await deps.stores.graph.page_of_memories(
            after=progress["after"],
            limit=min(page_size, progress["total"] - progress["done"]),
            user_id=user_id,
        )
    ):
        for owner in sorted({m.user_id for m in page}):
            ids = [m.id for m in page if m.user_id == owner]
            progress["embedded"] += await embed_memories(deps, owner, ids, force=force)
        progress["after"] = page[-1].id
        progress["done"] += len(page)
        await ctx.redis.set(key, json.dumps(progress), ex=PROGRESS_TTL_S)
    progress["state"] = "done"
    await ctx.redis.set(key, json.dumps(progress), ex=PROGRESS_TTL_S)
    return progress
