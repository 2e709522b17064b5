"""One consolidation run (AutoMem's modes), its record, and the lock that keeps runs apart.

Modes: `decay` rescores every live memory; `forget` rescores and archives (or, when enabled,
deletes) what no protection covers; `cluster` summarises clusters of similar recent memories;
`creative` is accepted for AutoMem's clients and does nothing here: its job (linking similar
memories) is done per memory by enrichment's SIMILAR_TO links; `full` runs decay, cluster and
forget in that order. Every run, dry or not, is recorded as a `ConsolidationRun` node (history
pruned to CONSOLIDATION_HISTORY_LIMIT); only non-dry runs count as a task's last run.

Runs never overlap, across processes: each holds a Redis lock (SET NX with a TTL, renewed while
it runs, released by compare-and-delete) and a second run waits for it.
"""

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis

from app.lifecycle.cluster import run_clustering
from app.lifecycle.decay import run_pass
from app.models import to_iso, utc_now
from app.storage import Stores
from app.storage.graph import lifecycle as store

log = logging.getLogger(__name__)

MODES = ("decay", "creative", "cluster", "forget", "full")
FULL = ("decay", "cluster", "forget")
LOCK_TTL_S = 30
LOCK_POLL_S = 0.5


async def run_mode(
    deps: Any,
    mode: str,
    *,
    clock: Callable[[], datetime] = utc_now,
    dry_run: bool = False,
    user_id: str | None = None,
) -> dict[str, Any]:
    """Runs one mode and returns AutoMem's `consolidation` object: {mode, dry_run, started_at,
    steps, completed_at, success} (an error is reported in the step, not raised). Relevance is
    computed as of `clock()` at the start."""
    if mode not in MODES:
        raise ValueError(f"unknown consolidation mode {mode!r}")
    now = clock()
    started = to_iso(now)
    steps: dict[str, Any] = {}
    success = True
    for step in FULL if mode == "full" else (mode,):
        try:
            steps[step] = await _step(deps, step, now, dry_run, user_id)
        except Exception as exc:  # reported in the run's record; the next step still runs
            log.exception("consolidation step %s failed", step)
            steps[step] = {"error": f"{type(exc).__name__}: {exc}"}
            success = False
    return {
        "mode": mode,
        "dry_run": dry_run,
        "started_at": started,
        "steps": steps,
        "completed_at": to_iso(clock()),
        "success": success,
    }


async def _step(
    deps: Any, step: str, now: datetime, dry_run: bool, user_id: str | None
) -> dict[str, Any]:
    config = deps.lifecycle
    if step in ("decay", "forget"):
        return await run_pass(
            deps.stores, config, now, forget=step == "forget", user_id=user_id, dry_run=dry_run
        )
    if step == "cluster":
        return await run_clustering(deps, config.cluster, now, user_id=user_id, dry_run=dry_run)
    return {"skipped": "similar memories are linked by enrichment (SIMILAR_TO)", "links": 0}


async def record(
    stores: Stores, task: str, result: dict[str, Any], *, trigger: str, keep: int
) -> None:
    """Stores a run's record and prunes the history."""
    run = {
        "id": str(uuid.uuid4()),
        "mode": result["mode"],
        "task": task,
        "success": result["success"],
        "dry_run": result["dry_run"],
        "started_at": result["started_at"],
        "completed_at": result["completed_at"],
        "result": result["steps"],
        "trigger": trigger,
    }
    await store.record_run(stores.graph, run, keep)


@contextlib.asynccontextmanager
async def run_lock(redis: aioredis.Redis, key: str, wait_s: float) -> AsyncIterator[None]:
    """Holds the lifecycle lock for the block: waits up to `wait_s` for another run to end."""
    token = uuid.uuid4().hex
    deadline = asyncio.get_running_loop().time() + wait_s
    while not await redis.set(key, token, nx=True, ex=LOCK_TTL_S):
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"another consolidation run still holds {key}")
        await asyncio.sleep(LOCK_POLL_S)
    renew = asyncio.create_task(_renew(redis, key, token))
    try:
        yield
    finally:
        renew.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renew
        await redis.eval(RELEASE, 1, key, token)


RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end"
RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('EXPIRE', KEYS[1], ARGV[2]) end"  # noqa: E501


async def _renew(redis: aioredis.Redis, key: str, token: str) -> None:
    while True:
        await asyncio.sleep(LOCK_TTL_S / 3)
        try:
            await redis.eval(RENEW, 1, key, token, LOCK_TTL_S)
        except Exception:  # a Redis blip: the next renewal tries again
            log.exception("renewing the consolidation lock failed")
