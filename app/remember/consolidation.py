"""Consolidation: a session's raw facts become consolidated memories once the session is idle.

With an LLM, one call synthesises durable memories from the session's new raw facts, with the
session's earlier consolidated memories as context (append-only: earlier outputs are kept). Without
one — or when it is unavailable — each raw fact is promoted as it is (they were deduplicated on
the way in), or linked to an identical consolidated memory that already exists.

Either way every consolidated memory points at its sources with DERIVED_FROM, and each source
records `superseded_by`. Raw facts stay (ranked lower) until retention removes them.
"""

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from app.llm import LLMUnavailable
from app.memories.build import build_memory
from app.memories.schemas import MemoryCreate, SourceIn
from app.memories.service import store_memories
from app.models import TYPE_ALIASES, Layer, Memory, MemoryType, Status, to_iso, utc_now
from app.remember.pipeline import RememberDeps
from app.scope import Scope
from app.storage.graph import sessions
from app.storage.graph.records import new_id

log = logging.getLogger(__name__)

ACTOR = "consolidation"
SYNTHESIS_SCHEMA = {
    "type": "object",
    "properties": {
        "memories": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string"},
                    "type": {"type": "string"},
                    "importance": {"type": "number"},
                    "sources": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["content", "type", "importance", "sources"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["memories"],
    "additionalProperties": False,
}
SYNTHESIS_PROMPT = (
    "You consolidate facts extracted from one conversation into durable long-term memories. "
    "Merge facts that say the same thing, keep each memory a standalone third-person sentence, "
    "drop small talk, and never invent facts. Facts already consolidated are given as context: "
    "do not repeat them. For each memory give its type (Fact, Preference, Event, Habit, "
    "Decision, Insight, Pattern, Style or Context), importance 0-1, and the numbers of the new "
    "facts it comes from."
)


@dataclass
class Consolidated:
    method: str = "promotion"
    sources: int = 0
    created: list[str] = field(default_factory=list)
    linked_to_existing: int = 0
    llm_error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def consolidate(deps: RememberDeps, user_id: str, session_id: str) -> Consolidated:
    """Consolidates the session's raw facts that are not consolidated yet."""
    graph = deps.stores.graph
    raws = await sessions.unconsolidated(graph, user_id, session_id)
    result = Consolidated(sources=len(raws))
    if raws:
        if deps.llm is not None:
            try:
                await _synthesise(deps, user_id, session_id, raws, result)
            except LLMUnavailable as exc:  # promotion still consolidates, visibly
                result.llm_error = str(exc)
                await _promote(deps, user_id, raws, result)
        else:
            await _promote(deps, user_id, raws, result)
    await sessions.mark_consolidated(graph, user_id, session_id, to_iso(utc_now()))
    return result


async def _promote(
    deps: RememberDeps, user_id: str, raws: list[Memory], result: Consolidated
) -> None:
    """Each raw fact becomes (or joins) a consolidated memory with the same content."""
    graph, now = deps.stores.graph, to_iso(utc_now())
    records = await deps.stores.vectors.retrieve([raw.id for raw in raws])
    links = []
    for raw in raws:
        existing = await sessions.consolidated_with_hash(
            graph, user_id, raw.agent_id, raw.content_hash
        )
        if existing is not None:
            links.append({"consolidated": existing.id, "raw": raw.id, "transformation": "same"})
            result.linked_to_existing += 1
            continue
        memory = _consolidated_copy(raw)
        record = records.get(raw.id)
        await store_memories(
            stores=deps.stores,
            scope=Scope(user_id, raw.agent_id),
            actor=ACTOR,
            memories=[memory],
            vectors={memory.id: record.dense if record else None},
            in_conversation=False,
        )
        links.append({"consolidated": memory.id, "raw": raw.id, "transformation": "promotion"})
        result.created.append(memory.id)
    await sessions.link_derived(graph, user_id, links, now=now)


def _consolidated_copy(raw: Memory) -> Memory:
    copy = raw.model_copy(deep=True)
    stamp = to_iso(utc_now())
    copy.id = new_id()
    copy.layer = Layer.CONSOLIDATED
    copy.created_at = copy.updated_at = stamp
    copy.version, copy.access_count = 1, 0
    copy.derived_from, copy.superseded_by = [], None
    copy.source = {**raw.source, "created_by": ACTOR}
    copy.embedding_status = copy.enrichment_status = Status.PENDING
    return copy


async def _synthesise(
    deps: RememberDeps, user_id: str, session_id: str, raws: list[Memory], result: Consolidated
) -> None:
    """One LLM call turns the new raw facts into consolidated memories (append-only)."""
    llm = deps.llm
    if llm is None:
        raise LLMUnavailable("no LLM is configured")
    earlier = await sessions.consolidated_of_session(deps.stores.graph, user_id, session_id)
    answer = await llm.chat_json(
        SYNTHESIS_PROMPT,
        _synthesis_input(raws, earlier),
        schema=SYNTHESIS_SCHEMA,
        schema_name="consolidated_memories",
        max_tokens=1500,
        temperature=0.2,
        budget=llm.new_budget(),
    )
    result.method = "llm"
    outputs = [item for item in answer.get("memories") or [] if isinstance(item, dict)]
    links = []
    for item in outputs:
        sources = [raws[i - 1] for i in _indexes(item.get("sources"), len(raws))]
        content = str(item.get("content") or "").strip()
        if not sources or not content:
            continue
        memory = _synthesised(content, item, sources, session_id)
        await store_memories(
            stores=deps.stores,
            scope=Scope(user_id, memory.agent_id),
            actor=ACTOR,
            memories=[memory],
            vectors={memory.id: None},
            in_conversation=False,
        )
        result.created.append(memory.id)
        links += [
            {"consolidated": memory.id, "raw": s.id, "transformation": "synthesis"} for s in sources
        ]
    await sessions.link_derived(deps.stores.graph, user_id, links, now=to_iso(utc_now()))


def _synthesis_input(raws: list[Memory], earlier: list[Memory]) -> str:
    lines = ["New facts:"]
    lines += [f"{i}. {raw.content}" for i, raw in enumerate(raws, start=1)]
    if earlier:
        lines += ["", "Already consolidated (context only):"]
        lines += [f"- {memory.content}" for memory in earlier]
    return "\n".join(lines)


def _indexes(value: Any, count: int) -> list[int]:
    if not isinstance(value, list):
        return []
    return sorted({i for i in value if isinstance(i, int) and 1 <= i <= count})


def _synthesised(
    content: str, item: dict[str, Any], sources: list[Memory], session_id: str
) -> Memory:
    first = sources[0]
    memory_type = TYPE_ALIASES.get(str(item.get("type", "")).lower(), MemoryType.CONTEXT)
    importance = item.get("importance")
    importance = (
        min(max(float(importance), 0.0), 1.0) if isinstance(importance, int | float) else 0.5
    )
    data = MemoryCreate(
        content=content[:10_000],
        type=memory_type,
        confidence=max(s.confidence for s in sources),
        importance=importance,
        categories=sorted({c for s in sources for c in s.categories}),
        labels=first.labels,
        role=first.role,
        agent_id=first.agent_id,
        timestamp=max(s.timestamp for s in sources),
        source=SourceIn(session_id=session_id, chat_id=first.source.get("chat_id")),
    )
    return build_memory(
        data, scope=Scope(first.user_id, first.agent_id), actor=ACTOR, now=utc_now()
    )
