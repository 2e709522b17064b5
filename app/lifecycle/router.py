"""AutoMem's consolidation endpoints (admin key): start a run, read the schedules and history."""

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body
from pydantic import BaseModel, Field, field_validator

from app.auth import resolve_scope
from app.deps import (
    AdminDep,
    AgentHeader,
    JobsDep,
    LLMDep,
    PrincipalDep,
    SchedulerRunningDep,
    SettingsDep,
    StoresDep,
)
from app.errors import Forbidden
from app.lifecycle.fsck import run_fsck
from app.lifecycle.runs import MODES
from app.lifecycle.tasks import LifecycleScheduler, describe, enqueue_run, schedules
from app.models import utc_now
from app.storage.graph import lifecycle as store

router = APIRouter(tags=["lifecycle"])

AUTOMEM_TASKS = ("decay", "creative", "cluster", "forget", "identity")


class ConsolidateRequest(BaseModel):
    mode: str = Field("full", description="decay, creative, cluster, forget or full.")
    dry_run: bool = Field(True, description="Report what would change, write nothing.")
    user_id: str | None = Field(
        None, max_length=200, description="Only this user's memories; null = everyone's."
    )

    @field_validator("mode", mode="before")
    @classmethod
    def _known_mode(cls, value: Any) -> str:
        if not isinstance(value, str) or value not in MODES:
            raise ValueError(f"must be one of {', '.join(MODES)}; got {value!r}")
        return value


class ConsolidateAccepted(BaseModel):
    status: Literal["queued"] = "queued"
    job_id: str = Field(description="Poll GET /admin/jobs/{job_id}; its result is the run.")
    mode: str = Field(description="The mode that will run.")
    dry_run: bool = Field(description="Whether it only reports.")
    user_id: str | None = Field(None, description="The user it is limited to, if any.")


class ConsolidationStatus(BaseModel):
    status: Literal["success"] = "success"
    next_runs: dict[str, str] = Field(
        description="Per task: Due now, In N day(s), In N hour(s) or Disabled (AutoMem's)."
    )
    schedules: dict[str, dict[str, Any]] = Field(
        description="Per task: interval_s (0 = off), last_slot_at, next_run_at (UTC)."
    )
    history: list[dict[str, Any]] = Field(description="The latest runs, newest first.")
    thread_alive: bool = Field(description="Whether this process runs the scheduler.")
    tick_seconds: float = Field(description="How often the scheduler looks for due tasks.")


@router.post("/consolidate", status_code=202, response_model=ConsolidateAccepted)
async def consolidate(
    jobs: JobsDep,
    _: AdminDep,
    body: Annotated[ConsolidateRequest, Body()] = ConsolidateRequest(),
) -> ConsolidateAccepted:
    """Starts a consolidation run as a job (never inline: a store of any size answers at once).
    The job's result is AutoMem's `consolidation` object; the run is also kept in the history."""
    queued = await enqueue_run(jobs, body.mode, dry_run=body.dry_run, user_id=body.user_id)
    return ConsolidateAccepted(
        job_id=queued.job_id, mode=body.mode, dry_run=body.dry_run, user_id=body.user_id
    )


@router.get("/consolidate/status", response_model=ConsolidationStatus)
async def consolidation_status(
    jobs: JobsDep,
    stores: StoresDep,
    settings: SettingsDep,
    scheduler_running: SchedulerRunningDep,
    _: AdminDep,
) -> ConsolidationStatus:
    """The next scheduled runs and the latest runs."""
    plan = schedules(settings)
    details = await LifecycleScheduler(jobs, plan).next_runs(plan)
    now = datetime.now(UTC)
    next_runs = dict.fromkeys(AUTOMEM_TASKS, "Disabled")
    next_runs.update({task: describe(d["next_run_at"], now) for task, d in details.items()})
    history = await store.run_history(stores.graph, settings.consolidation_history_limit)
    return ConsolidationStatus(
        next_runs=next_runs,
        schedules=details,
        history=history,
        thread_alive=scheduler_running,
        tick_seconds=settings.consolidation_tick_s,
    )


class FsckRequest(BaseModel):
    apply: bool = Field(False, description="Repair the findings marked safe.")
    llm: bool = Field(
        True,
        description="When an LLM is configured, let it confirm ambiguous findings "
        "(at most FSCK_MAX_LLM_CALLS calls).",
    )
    user_id: str | None = Field(
        None, max_length=200, description="Admin key only: this user; null = every user."
    )


class FsckReport(BaseModel):
    status: Literal["success"] = "success"
    user_id: str | None = Field(description="Whose memories were checked (null: everyone's).")
    agent_id: str | None = Field(None, description="The caller's agent scope, if any.")
    checked: int = Field(description="Memories read.")
    truncated: bool = Field(description="More memories exist than FSCK_MAX_MEMORIES.")
    counts: dict[str, int] = Field(description="Findings per type.")
    applied: int = Field(description="Findings repaired (apply=true, safe ones only).")
    llm_calls: int = Field(0, description="Calls the LLM pass made.")
    issues: list[dict[str, Any]] = Field(
        description="Findings (at most 200): type, ids, detail, fix, safe, applied, "
        "llm_verdict, llm_reason."
    )


@router.post("/admin/fsck", response_model=FsckReport)
async def fsck(
    stores: StoresDep,
    settings: SettingsDep,
    llm: LLMDep,
    principal: PrincipalDep,
    body: Annotated[FsckRequest, Body()] = FsckRequest(),
    x_agent_id: AgentHeader = None,
) -> FsckReport:
    """Checks the store (a user key: only what its scope sees; the admin key: one user or
    everyone) for duplicates, contradictions, broken validity, invalid memories, stored prompt
    injections, dangling references, missing and orphan vectors; `apply` repairs the safe ones.
    """
    scope = None
    if not principal.is_admin:
        scope = resolve_scope(principal, x_agent_id)
        if body.user_id not in (None, scope.user_id):
            raise Forbidden("A user's fsck checks only that user's memories")
    report = await run_fsck(
        SimpleNamespace(stores=stores, llm=llm),
        scope=scope,
        user_id=None if scope else body.user_id,
        apply=body.apply,
        limit=settings.fsck_max_memories,
        now=utc_now(),
        llm_calls=settings.fsck_max_llm_calls if body.llm else 0,
    )
    return FsckReport(**report)
