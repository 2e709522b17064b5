"""Jobs of /remember: extraction, consolidation after a session goes idle, raw-layer retention.

An extraction job carries the posted turns (the request was acknowledged once the job was
durably queued); a worker killed mid-job leaves it to be re-delivered, and the pipeline's
dedup makes the re-run repeat nothing. Each extraction schedules a consolidation of its session
SESSION_IDLE_SECONDS later, keyed by the session's activity counter: a consolidation job that
finds the session active again since it was scheduled does nothing (a later one is due).
"""

import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

from app.jobs.kinds import CONSOLIDATE, REMEMBER
from app.jobs.queue import JobQueue
from app.jobs.spec import JobContext
from app.memories.edits import unmirror
from app.models import to_iso, utc_now
from app.remember.consolidation import consolidate
from app.remember.facts import Turn
from app.remember.pipeline import Conversation, RememberDeps, remember
from app.remember.reflection import count_and_schedule, reflect
from app.remember.transcript import TranscriptOptions, keep_turns
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import sessions
from app.webhooks.events import announce_remember

RETENTION_PAGE = 200
Expired = Callable[..., Awaitable[list[tuple[str, str | None, str]]]]


class HasStores(Protocol):
    """What retention needs of the worker's dependencies."""

    stores: Stores


def remember_job_id_prefix(user_id: str) -> str:
    """Every extraction job id of a user starts with this (a user may poll only their own)."""
    return f"{REMEMBER}:{user_id}/"


async def enqueue_remember(jobs: JobQueue, talk: Conversation, job_key: str | None = None) -> str:
    """Queues the extraction of one /remember call; returns the job id to poll. A `job_key`
    (from an Idempotency-Key) makes the id fixed, so the job is queued at most once."""
    payload = {
        "scope_agent": talk.scope_agent,
        "agent_id": talk.agent_id,
        "role": talk.role,
        "session_id": talk.session_id,
        "labels": talk.labels,
        "source": talk.source,
        "turns": [_turn_payload(turn) for turn in talk.turns],
    }
    enqueued = await jobs.enqueue(REMEMBER, [talk.user_id, job_key or uuid.uuid4().hex], payload)
    return enqueued.job_id


def _turn_payload(turn: Turn) -> dict[str, Any]:
    return {
        "role": turn.role,
        "content": turn.content,
        "timestamp": to_iso(turn.timestamp),
        "message_id": turn.message_id,
        "name": turn.name,
    }


def conversation_of(user_id: str, payload: dict[str, Any]) -> Conversation:
    """The job payload back as a Conversation."""
    turns = [
        Turn(
            t["role"],
            t["content"],
            datetime.fromisoformat(t["timestamp"]),
            t.get("message_id"),
            t.get("name"),
        )
        for t in payload["turns"]
    ]
    return Conversation(
        user_id=user_id,
        scope_agent=payload.get("scope_agent"),
        agent_id=payload.get("agent_id"),
        role=payload.get("role"),
        session_id=payload["session_id"],
        turns=turns,
        labels=payload.get("labels") or {},
        source=payload.get("source") or {},
    )


async def remember_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `remember` jobs: ids = [user_id, nonce], payload = the call."""
    deps, started = ctx.deps, time.perf_counter()
    talk = conversation_of(ctx.ids[0], ctx.payload)
    activity = await sessions.touch_session(
        deps.stores.graph,
        talk.user_id,
        talk.session_id,
        agent_id=talk.agent_id,
        turns=len(talk.turns),
        now=to_iso(utc_now()),
    )
    options = TranscriptOptions(
        session_id=talk.session_id,
        agent_id=talk.agent_id,
        labels=talk.labels,
        chat_id=talk.source.get("chat_id"),
        model=talk.source.get("model"),
        job=ctx.ids[1],
    )
    conversation = Scope(talk.user_id, talk.agent_id)
    kept = await keep_turns(deps.stores, conversation, talk.turns, options)
    outcome = await remember(deps, talk, kept)
    outcome.turns_stored = len(kept.stored)
    await deps.jobs.enqueue(
        CONSOLIDATE,
        [talk.user_id, talk.session_id, activity],
        {},
        delay_s=deps.settings.session_idle_seconds,
    )
    outcome.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
    result = outcome.as_dict()
    every = deps.settings.reflection_every
    if reflecting := await count_and_schedule(deps, talk, kept, job=ctx.ids[1], every=every):
        result["reflect_job"] = reflecting
    await announce_remember(deps.stores, talk.user_id, ctx.job_id, talk.session_id, result)
    return result


async def consolidate_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `consolidate` jobs: ids = [user_id, session_id, activity when scheduled]."""
    deps: RememberDeps = ctx.deps
    user_id, session_id, activity = ctx.ids[0], ctx.ids[1], int(ctx.ids[2])
    if await sessions.session_activity(deps.stores.graph, user_id, session_id) != activity:
        return {"skipped": "the session was active again; a later consolidation is scheduled"}
    return (await consolidate(deps, user_id, session_id)).as_dict()


async def reflect_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `reflect` jobs: ids = [user_id, how many multiples of REFLECTION_EVERY]."""
    return (await reflect(ctx.deps, ctx.ids[0])).as_dict()


async def raw_retention_job(ctx: JobContext) -> dict[str, int]:
    """Handler of `raw_retention` jobs (hourly): RAW_RETENTION_DAYS from settings, and
    TRANSCRIPT_RETENTION_DAYS for transcript turns (0, the default, keeps them)."""
    settings = ctx.deps.settings
    deleted = await delete_expired_raw(ctx.deps, settings.raw_retention_days)
    turns = 0
    if settings.transcript_retention_days > 0:
        turns = await delete_expired_transcripts(ctx.deps, settings.transcript_retention_days)
    return {"deleted": deleted, "transcript_turns_deleted": turns}


async def delete_expired_transcripts(deps: HasStores, retention_days: float) -> int:
    """Deletes transcript turns said more than `retention_days` ago (tombstoned, audited); the
    facts extracted from them stay, and keep the ids of the turns they came from."""
    return await _delete_all(deps, sessions.expired_transcripts, retention_days)


async def delete_expired_raw(deps: HasStores, retention_days: float) -> int:
    """Deletes superseded raw facts older than the retention (tombstoned, audited); returns
    how many. Raw facts that are pinned or have links a client made are kept."""
    return await _delete_all(deps, sessions.expired_raw, retention_days)


async def _delete_all(deps: HasStores, expired_before: Expired, retention_days: float) -> int:
    """Deletes page after page of what `expired_before` finds older than the retention."""
    before = to_iso(utc_now() - timedelta(days=retention_days))
    deleted = 0
    while expired := await expired_before(deps.stores.graph, before=before, limit=RETENTION_PAGE):
        gone = await _delete_expired(deps, expired)
        deleted += gone
        if not gone:
            break
    return deleted


async def _delete_expired(deps: HasStores, expired: list[tuple[str, str | None, str]]) -> int:
    now, gone = to_iso(utc_now()), []
    by_scope: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    for user_id, agent_id, memory_id in expired:
        by_scope[(user_id, agent_id)].append(memory_id)
    for (user_id, agent_id), ids in by_scope.items():
        scope = Scope(user_id, agent_id)
        gone += await deps.stores.graph.delete_memories(scope, ids, actor="retention", now=now)
    if gone:
        await unmirror(deps.stores, gone)
    return len(gone)
