"""Lifecycle jobs and their schedules.

A consolidation run is a `lifecycle` job in the durable queue. Scheduled runs are cron-style:
a task with interval I is due once per slot [k·I, (k+1)·I) of UTC epoch time (daily decay runs
once per UTC day). Every worker process ticks a `LifecycleScheduler`; a tick claims the current
slot of each due task with one atomic compare-and-set on a Redis key (the last claimed slot),
so exactly one process enqueues the slot's job however many tick, and a restart within a slot
runs nothing again. The claims are durable (the server's AOF), which also gives the next runs.
"""

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.config import Settings
from app.jobs.kinds import LIFECYCLE
from app.jobs.queue import JobQueue
from app.jobs.spec import Enqueued, JobContext
from app.lifecycle.fsck import run_fsck
from app.lifecycle.runs import MODES, record, run_lock, run_mode
from app.models import to_iso, utc_now

log = logging.getLogger(__name__)

TASKS = ("decay", "cluster", "forget", "fsck")
LOCK_WAIT_S = 3600.0
FSCK_LISTED = 20  # findings kept in a scheduled fsck's run record

# Claims the slot if it is newer than the last claimed one; 1 if this caller claimed it.
CLAIM = """
local last = tonumber(redis.call('GET', KEYS[1]) or '-1')
if tonumber(ARGV[1]) > last then redis.call('SET', KEYS[1], ARGV[1]) return 1 end
return 0
"""


@dataclass(frozen=True)
class Schedule:
    task: str
    interval_s: int  # 0 = off


def schedules(settings: Settings) -> list[Schedule]:
    """The lifecycle's schedules from settings (CONSOLIDATION_*_INTERVAL_SECONDS)."""
    return [
        Schedule("decay", settings.consolidation_decay_interval_s),
        Schedule("cluster", settings.consolidation_cluster_interval_s),
        Schedule("forget", settings.consolidation_forget_interval_s),
        Schedule("fsck", settings.consolidation_fsck_interval_s),
    ]


def slot_key(namespace: str, task: str) -> str:
    return f"{namespace}:lifecycle:slot:{task}"


def lock_key(namespace: str) -> str:
    return f"{namespace}:lifecycle:lock"


async def enqueue_run(
    jobs: JobQueue, mode: str, *, dry_run: bool, user_id: str | None = None
) -> Enqueued:
    """Queues a run asked for by an operator (each request its own job)."""
    payload = {"mode": mode, "dry_run": dry_run, "user_id": user_id, "trigger": "manual"}
    return await jobs.enqueue(LIFECYCLE, [], payload, dedupe=False)


class LifecycleScheduler:
    """Enqueues each due task once per slot, across every process that ticks."""

    def __init__(
        self, jobs: JobQueue, plan: Sequence[Schedule], clock: Callable[[], float] = time.time
    ) -> None:
        self.jobs = jobs
        self.plan = [s for s in plan if s.interval_s > 0]
        self.clock = clock

    async def tick(self) -> list[str]:
        """Claims and enqueues what is due now; returns the job ids this process enqueued."""
        now = self.clock()
        enqueued = []
        for schedule in self.plan:
            slot = int(now // schedule.interval_s)
            key = slot_key(self.jobs.namespace, schedule.task)
            if not await self.jobs.redis.eval(CLAIM, 1, key, slot):
                continue
            payload = {
                "mode": schedule.task,
                "dry_run": False,
                "user_id": None,
                "trigger": "scheduled",
            }
            job = await self.jobs.enqueue(
                LIFECYCLE, ["scheduled", schedule.task, str(slot)], payload
            )
            enqueued.append(job.job_id)
        return enqueued

    async def next_runs(self, plan: Sequence[Schedule]) -> dict[str, dict[str, Any]]:
        """Per task: interval, last claimed slot's start, next run (None when off)."""
        now = self.clock()
        runs: dict[str, dict[str, Any]] = {}
        for schedule in plan:
            entry: dict[str, Any] = {
                "interval_s": schedule.interval_s,
                "next_run_at": None,
                "last_slot_at": None,
            }
            if schedule.interval_s > 0:
                raw = await self.jobs.redis.get(slot_key(self.jobs.namespace, schedule.task))
                nxt = now if raw is None else (int(raw) + 1) * schedule.interval_s
                if raw is not None:
                    entry["last_slot_at"] = _iso(int(raw) * schedule.interval_s)
                entry["next_run_at"] = _iso(max(nxt, now))
            runs[schedule.task] = entry
        return runs


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def describe(next_run_at: str | None, now: datetime) -> str:
    """AutoMem's wording: "Due now", "In N day(s)", "In N hour(s)", "Disabled"."""
    if next_run_at is None:
        return "Disabled"
    seconds = (datetime.fromisoformat(next_run_at) - now).total_seconds()
    if seconds <= 60:
        return "Due now"
    if seconds >= 86_400:
        return f"In {int(seconds // 86_400)} day(s)"
    return f"In {max(1, int(seconds // 3600))} hour(s)"


async def lifecycle_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `lifecycle` jobs: payload {mode, dry_run, user_id, trigger}. One run at a
    time across processes (a lock in Redis); the run is recorded, its result returned."""
    deps = ctx.deps
    mode = ctx.payload["mode"]
    async with run_lock(ctx.redis, lock_key(deps.jobs.namespace), LOCK_WAIT_S):
        if mode == "fsck":
            result = await _scheduled_fsck(deps)
        else:
            if mode not in MODES:
                raise ValueError(f"unknown consolidation mode {mode!r}")
            result = await run_mode(
                deps,
                mode,
                dry_run=bool(ctx.payload.get("dry_run")),
                user_id=ctx.payload.get("user_id"),
            )
        await record(
            deps.stores,
            mode,
            result,
            trigger=ctx.payload.get("trigger", "manual"),
            keep=deps.settings.consolidation_history_limit,
        )
    return result


async def _scheduled_fsck(deps: Any) -> dict[str, Any]:
    """The scheduled fsck: every user, report only (repairs are an operator's call)."""
    started = utc_now()
    report = await run_fsck(
        deps,
        scope=None,
        user_id=None,
        apply=False,
        limit=deps.settings.fsck_max_memories,
        now=started,
    )
    summary = {key: report[key] for key in ("checked", "truncated", "counts")}
    summary["issues"] = report["issues"][:FSCK_LISTED]
    return {
        "mode": "fsck",
        "dry_run": True,
        "started_at": to_iso(started),
        "steps": {"fsck": summary},
        "completed_at": to_iso(utc_now()),
        "success": True,
    }
