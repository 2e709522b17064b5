"""Job status for clients, and the operator's repair endpoints (admin key)."""

import asyncio
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Path, Query, Response
from pydantic import BaseModel, Field

from app.auth import resolve_scope
from app.deps import (
    AdminDep,
    AgentHeader,
    ClassificationStatsDep,
    JobsDep,
    LLMDep,
    PrincipalDep,
    QueryBool,
    RememberStatsDep,
    SettingsDep,
    StoresDep,
    WorkerSlotsDep,
)
from app.errors import NotFound, ServiceUnavailable
from app.jobs.kinds import REEMBED, SYNC, enrichment_enabled
from app.jobs.queue import JobQueue
from app.jobs.spec import JobStatus
from app.ops.tasks import read_progress
from app.storage import Stores
from app.storage.graph import enrichment, schema

router = APIRouter(tags=["operations"])

WAIT_POLL_S = 0.1  # how often a waiting POST /admin/reembed reads its job's state


class KindStatus(BaseModel):
    pending: int = Field(description="Waiting to run.")
    scheduled: int = Field(description="Waiting for a retry after a failure.")
    in_flight: int = Field(description="Running now.")
    done: int = Field(description="Finished successfully (since the queue was created).")
    failed: int = Field(description="Failed attempts (each retried until the last).")
    dead: int = Field(description="Gave up after the last attempt; kept with the last error.")
    aborted: int = Field(0, description="Cancelled attempts.")
    oldest_pending_age_s: float | None = Field(None, description="Age of the oldest pending job.")


class EnrichmentStatus(BaseModel):
    """AutoMem's /enrichment/status fields, extended with one entry per job kind."""

    status: Literal["running", "idle", "stopped"] = Field(
        description="running: jobs in flight; idle: nothing to do; stopped: no worker here."
    )
    queue_depth: int = Field(description="Jobs waiting (pending + scheduled), all kinds.")
    pending: int = Field(description="Jobs waiting to run, all kinds.")
    inflight: int = Field(description="Jobs running, all kinds.")
    processed: int = Field(description="Jobs done, all kinds.")
    failed: int = Field(description="Failed attempts, all kinds.")
    dead: int = Field(description="Dead jobs, all kinds.")
    oldest_pending_age_s: float | None = Field(None, description="Oldest pending job's age.")
    workers: int = Field(description="Job slots per kind in this process (0: separate workers).")
    jobs: dict[str, KindStatus] = Field(description="The same figures per job kind.")
    enrichment: dict[str, Any] = Field(
        description="Whether enrichment runs, and memories per enrichment state."
    )
    remember: dict[str, Any] = Field(
        default_factory=dict,
        description="/remember extraction: by rules, LLM attempts/successes/invalid answers, "
        "fallbacks to the rules, last error.",
    )
    classification: dict[str, Any] = Field(
        description="Classifier counters: pattern, llm attempts/successes, fallbacks, last error."
    )
    llm: dict[str, Any] | None = Field(
        None,
        description="The LLM client: calls, retries, tokens, circuit breaker, hourly budget "
        "(null: no LLM configured).",
    )


class JobAccepted(BaseModel):
    status: Literal["queued"] = "queued"
    job_id: str = Field(description="Poll GET /admin/jobs/{job_id}.")
    created: bool = Field(description="False if the same job was already pending (coalesced).")


class JobReport(BaseModel):
    job_id: str = Field(description="The job.")
    kind: str = Field(description="Its kind.")
    state: str = Field(description="queued, scheduled, running, done, dead, aborted or unknown.")
    attempts: int = Field(description="Attempts so far.")
    max_attempts: int = Field(description="Attempts allowed.")
    error: str | None = Field(None, description="The last error.")
    result: Any = Field(None, description="What the job returned (e.g. a sync report).")
    progress: dict[str, Any] | None = Field(None, description="Progress recorded while running.")


class DeadLetter(BaseModel):
    job_id: str = Field(description="The job.")
    kind: str = Field(description="Its kind.")
    ids: list[str] = Field(description="The memories it was for.")
    payload: dict[str, Any] = Field(description="Its arguments.")
    attempts: int = Field(description="Attempts made.")
    max_attempts: int = Field(description="Attempts allowed.")
    error: str | None = Field(None, description="The last error.")
    traceback: str = Field(description="The end of the last traceback.")
    history: list[Any] = Field(description="Earlier attempts' errors.")
    dead_at: float = Field(description="When it gave up (Unix seconds).")


class DeadLettersResponse(BaseModel):
    status: Literal["success"] = "success"
    dead: list[DeadLetter] = Field(description="Newest first; retry one with POST .../retry.")


class TaskOut(BaseModel):
    name: str = Field(description="The asyncio task's name.")
    done: bool = Field(description="Finished.")
    awaiting: list[str] = Field(description="Its await chain, outermost first.")


class TasksResponse(BaseModel):
    status: Literal["success"] = "success"
    count: int = Field(description="Tasks listed.")
    tasks: list[TaskOut] = Field(description="Every task of this process, by name.")


class ReembedRequest(BaseModel):
    """AutoMem's body ({batch_size, limit, force}) plus Engram's user filter."""

    user_id: str | None = Field(None, description="Only this user's memories; null = everyone's.")
    limit: int | None = Field(None, ge=1, description="At most this many memories (id order).")
    batch_size: int = Field(32, ge=1, le=100, description="Memories per embedding call.")
    force: bool = Field(
        True, description="Re-embed every memory; false: only those without a current vector."
    )


class ReembedComplete(BaseModel):
    """AutoMem's answer to a re-embedding it finished, with the job that did it."""

    status: Literal["complete"] = "complete"
    processed: int = Field(description="Memories gone through.")
    failed: int = Field(
        0,
        description="Memories that could not be embedded (always 0: a failed "
        "batch fails the job, which is retried).",
    )
    total: int = Field(description="Memories to go through.")
    batch_size: int = Field(description="Memories per embedding call.")
    metadata_preserved: bool = Field(True, description="Only vectors change.")
    embedded: int = Field(description="Memories given a new vector.")
    job_id: str = Field(description="The job that did it: GET /admin/jobs/{job_id}.")


class SyncRequest(BaseModel):
    repair: bool = Field(True, description="Repair the drift found (false: only report it).")


@router.get("/enrichment/status", response_model=EnrichmentStatus)
async def enrichment_status(
    stores: StoresDep,
    jobs: JobsDep,
    workers: WorkerSlotsDep,
    classification: ClassificationStatsDep,
    remember_stats: RememberStatsDep,
    llm: LLMDep,
    principal: PrincipalDep,
    x_agent_id: AgentHeader = None,
) -> EnrichmentStatus:
    """Background job figures: depth per kind, in flight, done, failed, dead, oldest age; and
    the memories per enrichment state that the caller can see (every user's for the admin key).
    """
    counted = None if principal.is_admin else resolve_scope(principal, x_agent_id)
    stats = await jobs.stats()
    kinds = {kind: KindStatus(**values) for kind, values in stats.items()}
    total = lambda field: sum(getattr(k, field) for k in kinds.values())  # noqa: E731
    ages = [k.oldest_pending_age_s for k in kinds.values() if k.oldest_pending_age_s is not None]
    state = "running" if total("in_flight") else ("idle" if workers else "stopped")
    return EnrichmentStatus(
        status=state,
        queue_depth=total("pending") + total("scheduled"),
        pending=total("pending"),
        inflight=total("in_flight"),
        processed=total("done"),
        failed=total("failed"),
        dead=total("dead"),
        oldest_pending_age_s=max(ages) if ages else None,
        workers=workers,
        jobs=kinds,
        enrichment={
            "enabled": enrichment_enabled(jobs),
            "memories": await enrichment.count_by_status(stores.graph, counted),
        },
        classification=classification.as_dict(),
        remember=remember_stats.as_dict(),
        llm=llm.status() if llm is not None else None,
    )


WaitQuery = Annotated[
    QueryBool | None,
    Query(
        description="true: wait for the job (up to ENGRAM_REEMBED_WAIT_S) and answer 200 with "
        "its result; false: answer 202 at once; absent: wait when at most "
        "ENGRAM_REEMBED_SYNC_MAX memories are to be re-embedded."
    ),
]


@router.post(
    "/admin/reembed",
    status_code=202,
    response_model=JobAccepted | ReembedComplete,
    responses={200: {"model": ReembedComplete, "description": "Finished while the call waited."}},
)
async def reembed(
    jobs: JobsDep,
    stores: StoresDep,
    settings: SettingsDep,
    response: Response,
    _: AdminDep,
    body: Annotated[ReembedRequest, Body()] = ReembedRequest(),
    wait: WaitQuery = None,
) -> JobAccepted | ReembedComplete:
    """Re-embeds every memory (or one user's, or the first `limit`) as a resumable job with
    progress. Answers 200 with AutoMem's body when it waited for the job to finish (see `wait`),
    202 with the job otherwise (a job still running after the wait also carries on)."""
    key = [body.user_id or "*", str(body.limit or "all"), str(body.force)]
    enqueued = await jobs.enqueue(REEMBED, key, body.model_dump())
    if wait is None:
        wait = await _memories_to_reembed(stores, body) <= settings.reembed_sync_max
    if wait:
        finished = await _finished(jobs, enqueued.job_id, settings.reembed_wait_s)
        if finished is not None:
            response.status_code = 200
            return _complete(finished, body.batch_size)
    return JobAccepted(job_id=enqueued.job_id, created=enqueued.created)


async def _memories_to_reembed(stores: Stores, body: ReembedRequest) -> int:
    total = await stores.graph.count_memories(body.user_id)
    return min(total, body.limit) if body.limit else total


async def _finished(jobs: JobQueue, job_id: str, wait_s: float) -> JobStatus | None:
    """The job once it is done, or None if it is still queued or running after `wait_s`. A job
    that gave up is a 503 (AutoMem's answer when it cannot embed), with its error."""
    deadline = time.monotonic() + wait_s
    while True:
        status = await jobs.status(job_id)
        if status.state == "done":
            return status
        if status.state == "dead":
            raise ServiceUnavailable(f"Re-embedding failed ({job_id}): {status.error}")
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(WAIT_POLL_S)


def _complete(finished: JobStatus, batch_size: int) -> ReembedComplete:
    result = finished.result or {}
    return ReembedComplete(
        processed=result.get("done", 0),
        total=result.get("total", 0),
        batch_size=batch_size,
        embedded=result.get("embedded", 0),
        job_id=finished.job_id,
    )


@router.post("/admin/sync", status_code=202, response_model=JobAccepted)
async def sync_now(
    jobs: JobsDep, _: AdminDep, body: Annotated[SyncRequest, Body()] = SyncRequest()
) -> JobAccepted:
    """Finds graph↔Qdrant drift (missing, orphan, stale points) and repairs it, as a job."""
    enqueued = await jobs.enqueue(SYNC, ["manual"], body.model_dump())
    return JobAccepted(job_id=enqueued.job_id, created=enqueued.created)


@router.get("/admin/jobs/{job_id:path}", response_model=JobReport)
async def job_report(
    jobs: JobsDep, _: AdminDep, job_id: Annotated[str, Path(max_length=300)]
) -> JobReport:
    """A job's state, attempts, last error, result and progress."""
    status = await jobs.status(job_id)
    if status.state == "unknown":
        raise NotFound(f"Job {job_id} not found")
    return JobReport(
        job_id=status.job_id,
        kind=status.kind,
        state=status.state,
        attempts=status.attempts,
        max_attempts=status.max_attempts,
        error=status.error,
        result=status.result,
        progress=await read_progress(jobs, job_id),
    )


@router.get("/admin/dead-letters", response_model=DeadLettersResponse)
async def dead_letters(jobs: JobsDep, _: AdminDep) -> dict[str, Any]:
    """Jobs that gave up, newest first, each with its last error."""
    return {"status": "success", "dead": await jobs.dead_letters()}


@router.get("/admin/debug/tasks", response_model=TasksResponse)
async def debug_tasks(_: AdminDep) -> dict[str, Any]:
    """Every asyncio task of this process with where it is waiting (to diagnose stuck jobs)."""
    tasks: list[dict[str, Any]] = []
    for task in asyncio.all_tasks():
        tasks.append({"name": task.get_name(), "done": task.done(), "awaiting": _chain(task)})
    tasks.sort(key=lambda t: t["name"])
    return {"status": "success", "count": len(tasks), "tasks": tasks}


def _chain(task: asyncio.Task[Any]) -> list[str]:
    """The coroutine await chain of a task, outermost first, down to what it waits on."""
    chain: list[str] = []
    awaitable: Any = task.get_coro()
    while awaitable is not None and len(chain) < 50:
        frame = getattr(awaitable, "cr_frame", None) or getattr(awaitable, "gi_frame", None)
        if frame is None:
            chain.append(repr(awaitable)[:200])
            break
        chain.append(f"{frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
        awaitable = getattr(awaitable, "cr_await", None) or getattr(awaitable, "gi_yieldfrom", None)
    return chain


@router.post("/admin/jobs/{job_id:path}/retry", status_code=202, response_model=JobAccepted)
async def retry_dead(
    jobs: JobsDep, _: AdminDep, job_id: Annotated[str, Path(max_length=300)]
) -> JobAccepted:
    """Runs a dead job again with fresh attempts."""
    enqueued = await jobs.requeue_dead(job_id)
    if enqueued is None:
        raise NotFound(f"No dead job {job_id}")
    return JobAccepted(job_id=enqueued.job_id, created=enqueued.created)


class MigrateReport(BaseModel):
    status: Literal["success"] = "success"
    applied: list[str] = Field(description="Migrations applied by this call (usually none).")
    level: str | None = Field(description="The newest migration the graph has now.")
    migrations: list[str] = Field(description="Every migration this version knows, in order.")


@router.post("/admin/migrate", response_model=MigrateReport)
async def migrate_schema(stores: StoresDep, _: AdminDep) -> MigrateReport:
    """Applies pending schema migrations (start-up does too; this is for a restored or
    imported graph, or to check the level). Every migration is idempotent."""
    applied = await schema.migrate(stores.graph)
    known = [name for name, _ in schema.discover()]
    return MigrateReport(applied=applied, level=known[-1] if known else None, migrations=known)
