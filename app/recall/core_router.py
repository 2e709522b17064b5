"""Core memories, AutoMem's startup recall, and a prompt-ready context block."""

from typing import Annotated, Any, Literal, NamedTuple

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, Field

from app.deps import EmbedderDep, QueryBool, ScopeDep, SettingsDep, StoresDep
from app.errors import BadRequest
from app.memories.schemas import MemoryOut, public
from app.models import Memory
from app.recall import context, service, tiers
from app.recall import params as recall_params
from app.recall.dependencies import RecallConfigDep
from app.recall.outcome import RecallConfig
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import reflections, transcripts
from app.storage.graph.transcripts import Message

router = APIRouter(tags=["recall"])

LESSON_TAGS = ["critical", "lesson", "ai-assistant"]
SYSTEM_TAGS = ["system", "memory-recall"]
# Without the shared scope, recall asks for this many times the results wanted (at most
# MAX_RECALL), since the shared ones it finds are dropped.
OWN_ONLY_WIDEN, MAX_RECALL = 3, 100


class CoreResponse(BaseModel):
    status: Literal["success"] = "success"
    sections: dict[str, list[MemoryOut]] = Field(
        description="Pinned memories: Agent Identity, Agent Knowledge, Agent Instructions, "
        "User Facts, User Preferences."
    )
    important: list[MemoryOut] = Field(description="The most important unpinned memories.")
    recent: list[MemoryOut] = Field(description="Memories of the last 7 days.")
    count: int = Field(description="Memories in all three parts.")


class StartupResponse(BaseModel):
    status: Literal["success"] = "success"
    reflection: MemoryOut | None = Field(
        None, description="The user's newest current reflection (their profile), if any."
    )
    critical_lessons: list[dict[str, Any]] = Field(
        description="Tagged critical/lesson/ai-assistant."
    )
    system_rules: list[dict[str, Any]] = Field(description="Tagged system/memory-recall.")
    lesson_count: int = Field(description="Number of lessons.")
    has_critical: bool = Field(description="Any lesson with importance ≥ 0.9.")
    summary: str = Field(description="One line for humans.")
    memoryless: bool | None = Field(None, description="true: nothing was read (memoryless).")
    personal_intelligence: bool | None = Field(
        None, description="false: only the session's and pinned memories were kept."
    )


class ContextRequest(BaseModel):
    query: str = Field("", description="What the conversation is about; empty = core only.")
    max_tokens: int = Field(1000, ge=50, le=32000, description="Budget (≈ 4 characters a token).")
    limit: int = Field(10, ge=1, le=100, description="Recall results to consider.")
    include_core: bool = Field(True, description="Pinned memories first.")
    session_id: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="The conversation: its latest messages come first, and it is the session "
        "Personal Intelligence (off) and MemoryLess are judged by.",
    )
    session_messages: int | None = Field(
        None,
        ge=0,
        le=50,
        description="How many of the session's latest messages (default SESSION_CONTEXT_MESSAGES).",
    )
    memoryless: bool = Field(False, description="Read nothing personal: an empty context.")
    shared: bool = Field(
        True,
        description="false: only the agent's own memories (and its sub-agents'), none of the "
        "user's shared (agent-less) ones and no reflection; needs X-Agent-Id. For a front-end "
        "whose users share one key as sub-agents (e.g. Open WebUI).",
    )


class ContextResponse(BaseModel):
    status: Literal["success"] = "success"
    context: str = Field(description="The block to put in a prompt.")
    memory_ids: list[str] = Field(description="The memories it contains, in order (for citing).")
    tokens_estimated: int = Field(description="Its size in estimated tokens.")
    truncated: bool = Field(description="Whether memories were left out for lack of budget.")
    session_messages: int = Field(0, description="The session's messages it opens with.")
    memoryless: bool | None = Field(None, description="true: nothing was read (memoryless).")
    personal_intelligence: bool | None = Field(
        None, description="false: only the session's and pinned memories were kept."
    )


@router.get("/core", response_model=CoreResponse)
async def core(
    stores: StoresDep,
    scope: ScopeDep,
    include_archived: Annotated[QueryBool, Query(description="Archived memories too.")] = False,
) -> CoreResponse:
    """mnemory's core memories: pinned sections, then the most important, then recent."""
    found = await context.core_memories(stores.graph, scope, include_archived)
    return CoreResponse(
        sections={name: [public(m) for m in found.sections[name]] for name in context.SECTIONS},
        important=[public(m) for m in found.important],
        recent=[public(m) for m in found.recent],
        count=len(found.ordered()),
    )


@router.get("/startup-recall", response_model=StartupResponse)
async def startup_recall(
    stores: StoresDep,
    scope: ScopeDep,
    session_id: Annotated[
        str | None, Query(max_length=200, description="The session starting.")
    ] = None,
    memoryless: Annotated[QueryBool, Query(description="Read nothing personal.")] = False,
) -> StartupResponse:
    """AutoMem's session-start memories: lessons and system rules."""
    graph = stores.graph
    tier = await tiers.tier_of(graph, scope, session_id=session_id, memoryless=memoryless)
    if tier.memoryless:
        return StartupResponse(
            critical_lessons=[],
            system_rules=[],
            lesson_count=0,
            has_critical=False,
            summary="memoryless: nothing read",
            memoryless=True,
        )
    lessons = tiers.visible(await graph.tagged(scope, LESSON_TAGS, 10), tier)
    rules = tiers.visible(await graph.tagged(scope, SYSTEM_TAGS, 5), tier)
    critical = any(m.importance >= 0.9 for m in lessons)
    return StartupResponse(
        critical_lessons=[_lesson(m) for m in lessons],
        system_rules=[{"id": m.id, "content": m.content, "tags": m.tags} for m in rules],
        lesson_count=len(lessons),
        has_critical=critical,
        summary=f"{len(lessons)} lesson(s), {len(rules)} system rule(s)",
        personal_intelligence=None if tier.personal_intelligence else False,
        reflection=await _reflection(stores, scope) if tier.personal_intelligence else None,
    )


async def _reflection(stores: Stores, scope: Scope) -> dict[str, Any] | None:
    found = await reflections.current_reflection(stores.graph, scope)
    return public(found) if found is not None else None


def _lesson(memory: Memory) -> dict[str, Any]:
    keys = ("id", "content", "tags", "importance", "type", "metadata")
    return {key: value for key, value in public(memory).items() if key in keys}


@router.post("/recall/context", response_model=ContextResponse)
async def recall_context(
    stores: StoresDep,
    embedder: EmbedderDep,
    config: RecallConfigDep,
    settings: SettingsDep,
    scope: ScopeDep,
    body: ContextRequest = Body(...),
) -> ContextResponse:
    """A prompt-ready block within max_tokens: the session's latest messages first, then core,
    then what the query recalls."""
    if not (body.query or body.include_core or body.session_id):
        raise BadRequest("Give a query, or include_core, or a session_id")
    if not body.shared and not scope.agent_id:
        raise BadRequest("shared: false keeps only an agent's own memories: send X-Agent-Id")
    tier = await tiers.tier_of(
        stores.graph, scope, session_id=body.session_id, memoryless=body.memoryless
    )
    if tier.memoryless:
        return ContextResponse(
            context="", memory_ids=[], tokens_estimated=0, truncated=False, memoryless=True
        )
    count = settings.session_context_messages
    turns = await _session_turns(stores, scope, body, count)
    said = {memory_id for message in turns for memory_id in message.chunk_ids}
    found = await _memories(stores, embedder, config, scope, body)
    shown = found.memories
    if body.shared:
        shown = await reflections.reflection_first(stores.graph, scope, shown)
    unique = [m for m in {m.id: m for m in shown}.values() if m.id not in said]
    packed = context.pack(
        tiers.visible(unique, tier), body.max_tokens, turns, found.replaced, found.passages
    )
    return ContextResponse(
        context=packed.text,
        memory_ids=packed.memory_ids,
        tokens_estimated=packed.tokens,
        truncated=packed.truncated,
        session_messages=packed.turns,
        personal_intelligence=None if tier.personal_intelligence else False,
    )


async def _session_turns(
    stores: Stores, scope: Scope, body: ContextRequest, default: int
) -> list[Message]:
    if not body.session_id:
        return []
    count = default if body.session_messages is None else body.session_messages
    return await transcripts.latest_turns(stores.graph, scope, body.session_id, count)


class _Found(NamedTuple):
    memories: list[Memory]
    replaced: dict[str, Memory]  # a memory's id → the later one that replaced it
    passages: dict[str, tuple[int, int]]  # a long memory's id → the part that matched


async def _memories(
    stores: Stores,
    embedder: EmbedderDep,
    config: RecallConfig,
    scope: Scope,
    body: ContextRequest,
) -> _Found:
    """Core (pinned, by section) if asked, then what the query recalls; without the shared
    scope, the agent's own only (recall asks for more, as shared ones are dropped after).
    Also the recalled memories a later one replaced (recall/current.py), and the passage of a
    long one that matched (excerpt.py), by id."""
    ordered: list[Memory] = []
    replaced: dict[str, Memory] = {}
    passages: dict[str, tuple[int, int]] = {}
    if body.include_core:
        found = await context.core_memories(stores.graph, scope)
        ordered += [m for name in context.SECTIONS for m in found.sections[name]]
    if body.query:
        limit = body.limit if body.shared else min(body.limit * OWN_ONLY_WIDEN, MAX_RECALL)
        params = recall_params.parse({"query": body.query, "limit": limit})
        outcome = await service.recall(
            stores=stores, embedder=embedder, scope=scope, params=params, config=config
        )
        recalled = [hit.memory for hit in outcome.hits]
        replaced = {h.memory.id: h.replaced_by for h in outcome.hits if h.replaced_by is not None}
        passages = {h.memory.id: h.passage for h in outcome.hits if h.passage is not None}
        ordered += (
            recalled if body.shared else [m for m in recalled if m.agent_lineage][: body.limit]
        )
    shown = ordered if body.shared else [m for m in ordered if m.agent_lineage]
    kept = {m.id for m in shown}
    return _Found(shown, {old: new for old, new in replaced.items() if new.id in kept}, passages)
