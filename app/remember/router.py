"""POST /remember (conversation turns in, 202 at once) and polling its job."""

import hashlib
import time
from dataclasses import replace
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.auth import memory_agent
from app.config import Settings
from app.deps import JobsDep, ScopeDep, SettingsDep, StoresDep
from app.errors import NotFound, PayloadTooLarge
from app.http_idempotency import IdempotencyKey, Reply, respond_once
from app.jobs.queue import JobQueue
from app.memories.fields import AgentId, Labels, Timestamp
from app.models import utc_now
from app.ratelimit import REMEMBER, check_rate
from app.remember.facts import Turn
from app.remember.pipeline import Conversation
from app.remember.tasks import enqueue_remember, remember_job_id_prefix
from app.remember.transcript import with_message_ids
from app.scope import Scope
from app.storage.graph import idempotency, sessions
from app.storage.graph.idempotency import Claim

router = APIRouter(tags=["remember"])


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "assistant", "system", "tool"] = Field(description="Who said it.")
    content: str = Field(description="The message text.")
    timestamp: Timestamp | None = Field(None, description="When it was said; default now.")
    message_id: str | None = Field(
        None,
        max_length=200,
        description="The client's message id: a turn is kept once per session and message id "
        "(without one, once per position in the call and content).",
    )
    name: str | None = Field(
        None,
        max_length=100,
        description="The speaker's name (OpenAI's `name`): facts about them name them, and "
        "their turns are searched with it.",
    )

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value


class RememberSource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    chat_id: str | None = Field(None, max_length=200, description="The chat's id.")
    model: str | None = Field(None, max_length=200, description="The model that answered.")


class RememberRequest(BaseModel):
    """One exchange (or several turns) of a conversation."""

    messages: list[MessageIn] = Field(min_length=1, description="The turns, oldest first.")
    session_id: str = Field(min_length=1, max_length=200, description="The conversation.")
    agent_id: AgentId = None
    role: Literal["user", "assistant"] | None = Field(
        None,
        description="Whose facts to keep: null = both, attributed automatically (assistant "
        "facts need an agent: agent_id, or else X-Agent-Id); user; assistant (needs an agent).",
    )
    labels: Labels = Field(default_factory=dict)
    source: RememberSource | None = Field(None, description="Where the conversation happens.")
    memoryless: bool = Field(
        False,
        description="Store nothing of this call: no turn, no fact, no log line with its content "
        "(a session can be made memoryless for good: PUT /sessions/{id}).",
    )


class RememberAccepted(BaseModel):
    status: Literal["accepted", "memoryless"] = Field(
        "accepted", description="memoryless: nothing was stored, no job was queued."
    )
    job_id: str | None = Field(description="Poll GET /remember/jobs/{job_id}; null if memoryless.")
    session_id: str = Field(description="The session the turns belong to.")
    messages: int = Field(description="Turns accepted.")
    query_time_ms: float = Field(description="Time to acknowledge.")


class RememberJob(BaseModel):
    job_id: str = Field(description="The job.")
    state: str = Field(description="queued, scheduled, running, done, dead or aborted.")
    attempts: int = Field(description="Attempts so far (a crashed worker's job is re-run).")
    error: str | None = Field(None, description="The last error, if an attempt failed.")
    result: dict[str, Any] | None = Field(
        None, description="When done: extractor, facts extracted, stored ids, duplicates…"
    )


@router.post("/remember", status_code=202, response_model=RememberAccepted)
async def remember(
    request: Request,
    body: RememberRequest,
    settings: SettingsDep,
    jobs: JobsDep,
    stores: StoresDep,
    scope: ScopeDep,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Accepts conversation turns and extracts durable facts from them in the background.

    Answers at once: extraction (an LLM call, or the rule-based extractor) runs as a durable
    job. Limits: REMEMBER_MAX_MESSAGES turns and REMEMBER_MAX_CHARS characters per call (413),
    REMEMBER_RATE_PER_MINUTE calls per user (429 with Retry-After). With an Idempotency-Key the
    job's id is fixed by the key, so a retry never queues the extraction twice.
    """
    started = time.perf_counter()
    talk = _talk(body, settings, scope)
    if body.memoryless or await sessions.is_memoryless(stores.graph, scope, body.session_id):
        reply = _accepted(body, None, started).model_copy(update={"status": "memoryless"})
        return JSONResponse(reply.model_dump(mode="json"), status_code=202)

    def accepted(job_id: str) -> Reply:
        return 202, _accepted(body, job_id, started).model_dump(mode="json")

    async def write(claim: Claim | None) -> Reply:
        await check_rate(
            jobs.redis,
            jobs.namespace,
            REMEMBER,
            scope.user_id,
            settings.remember_rate_per_minute,
        )
        if claim is None:
            return accepted(await enqueue_remember(jobs, talk))
        job_key = hashlib.sha256(f"{claim.user_id}\n{claim.key}".encode()).hexdigest()[:32]
        job_id = f"{remember_job_id_prefix(scope.user_id)}{job_key}"
        await idempotency.claim(stores.graph, replace(claim, refs=[job_id, job_key]))
        return accepted(await enqueue_remember(jobs, talk, job_key))

    async def again(refs: list[str]) -> Reply:
        job_id, job_key = refs
        if (await jobs.status(job_id)).state == "unknown":  # claimed, never queued
            await enqueue_remember(jobs, talk, job_key)
        return accepted(job_id)

    return await respond_once(request, stores.graph, scope.user_id, idempotency_key, write, again)


def _talk(body: RememberRequest, settings: Settings, scope: Scope) -> Conversation:
    _check_size(body, settings.remember_max_messages, settings.remember_max_chars)
    # The agent that facts about the assistant belong to: the body's agent_id, else the
    # caller's X-Agent-Id (as for POST /memory); 403 for an agent outside the caller's scope.
    agent = memory_agent(scope, body.agent_id)
    return _conversation(body, scope, agent)


def _accepted(body: RememberRequest, job_id: str | None, started: float) -> RememberAccepted:
    return RememberAccepted(
        job_id=job_id,
        session_id=body.session_id,
        messages=len(body.messages),
        query_time_ms=round((time.perf_counter() - started) * 1000, 2),
    )


def _check_size(body: RememberRequest, max_messages: int, max_chars: int) -> None:
    if len(body.messages) > max_messages:
        raise PayloadTooLarge(
            f"Too many messages: {len(body.messages)} given, at most {max_messages} per call; "
            "send the conversation in several calls"
        )
    total = sum(len(m.content) for m in body.messages)
    if total > max_chars:
        raise PayloadTooLarge(
            f"Messages too long: {total} characters given, at most {max_chars} characters per call"
        )


def _conversation(body: RememberRequest, scope: Scope, agent: str | None) -> Conversation:
    now = utc_now()
    turns = with_message_ids(
        [Turn(m.role, m.content, m.timestamp or now, m.message_id, m.name) for m in body.messages]
    )
    return Conversation(
        user_id=scope.user_id,
        scope_agent=scope.agent_id,
        agent_id=agent,
        role=body.role,
        session_id=body.session_id,
        turns=turns,
        labels=body.labels,
        source=body.source.model_dump(exclude_none=True) if body.source else {},
    )


@router.get("/remember/jobs/{job_id:path}", response_model=RememberJob)
async def remember_job(
    jobs: JobsDep, scope: ScopeDep, job_id: Annotated[str, Path(max_length=300)]
) -> RememberJob:
    """The state of one of your /remember jobs, and what it stored once done: only the scope
    that made the job (its user and X-Agent-Id) reads it; any other is 404."""
    if not await _made_by(jobs, job_id, scope):
        raise NotFound(f"Job {job_id} not found")
    status = await jobs.status(job_id)
    if status.state == "unknown":
        raise NotFound(f"Job {job_id} not found")
    return RememberJob(
        job_id=job_id,
        state=status.state,
        attempts=status.attempts,
        error=status.error,
        result=status.result if isinstance(status.result, dict) else None,
    )


async def _made_by(jobs: JobQueue, job_id: str, scope: Scope) -> bool:
    """Whether the job is a /remember job of this scope: its user (in the id) and its agent
    (in the payload; a sibling or parent agent, or the user without one, is another scope)."""
    if not job_id.startswith(remember_job_id_prefix(scope.user_id)):
        return False
    payload = await jobs.payload(job_id)
    return payload is not None and payload.get("scope_agent") == scope.agent_id
