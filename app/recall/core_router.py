"""Core memories, AutoMem's startup recall, and a prompt-ready context block."""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, Field

from app.deps import EmbedderDep, ScopeDep, StoresDep
from app.errors import BadRequest
from app.memories.schemas import MemoryOut, public
from app.models import Memory
from app.recall import context, service
from app.recall import params as recall_params
from app.recall.dependencies import RecallConfigDep
from app.scope import Scope
from app.storage import Stores, reflections

router = APIRouter(tags=["recall"])

LESSON_TAGS = ["critical", "lesson", "ai-assistant"]
SYSTEM_TAGS = ["system", "memory-recall"]


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


class ContextRequest(BaseModel):
    query: str = Field("", description="What the conversation is about; empty = core only.")
    max_tokens: int = Field(1000, ge=50, le=32000, description="Budget (≈ 4 characters a token).")
    limit: int = Field(10, ge=1, le=100, description="Recall results to consider.")
    include_core: bool = Field(True, description="Pinned memories first.")


class ContextResponse(BaseModel):
    status: Literal["success"] = "success"
    context: str = Field(description="The block to put in a prompt.")
    memory_ids: list[str] = Field(description="The memories it contains, in order (for citing).")
    tokens_estimated: int = Field(description="Its size in estimated tokens.")
    truncated: bool = Field(description="Whether memories were left out for lack of budget.")


@router.get("/core", response_model=CoreResponse)
async def core(
    stores: StoresDep,
    scope: ScopeDep,
    include_archived: Annotated[bool, Query(description="Archived memories too.")] = False,
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
async def startup_recall(stores: StoresDep, scope: ScopeDep) -> StartupResponse:
    """AutoMem's session-start memories: lessons and system rules."""
    graph = stores.graph
    lessons = await graph.tagged(scope, LESSON_TAGS, 10)
    rules = await graph.tagged(scope, SYSTEM_TAGS, 5)
    critical = any(m.importance >= 0.9 for m in lessons)
    return StartupResponse(
        critical_lessons=[_lesson(m) for m in lessons],
        system_rules=[{"id": m.id, "content": m.content, "tags": m.tags} for m in rules],
        lesson_count=len(lessons),
        has_critical=critical,
        summary=f"{len(lessons)} lesson(s), {len(rules)} system rule(s)",
        reflection=await _reflection(stores, scope),
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
    scope: ScopeDep,
    body: ContextRequest = Body(...),
) -> ContextResponse:
    """A prompt-ready block within max_tokens: core first, then what the query recalls."""
    ordered: list[Memory] = []
    if body.include_core:
        found = await context.core_memories(stores.graph, scope)
        ordered += [m for name in context.SECTIONS for m in found.sections[name]]
    if body.query:
        params = recall_params.parse({"query": body.query, "limit": body.limit})
        outcome = await service.recall(
            stores=stores, embedder=embedder, scope=scope, params=params, config=config
        )
        ordered += [hit.memory for hit in outcome.hits]
    elif not body.include_core:
        raise BadRequest("Give a query, or include_core, or both")
    ordered = await reflections.reflection_first(stores.graph, scope, ordered)
    unique = list({m.id: m for m in ordered}.values())
    packed = context.pack(unique, body.max_tokens)
    return ContextResponse(
        context=packed.text,
        memory_ids=packed.memory_ids,
        tokens_estimated=packed.tokens,
        truncated=packed.truncated,
    )
