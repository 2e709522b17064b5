"""The body of a /recall response, built from a recall's outcome: the results (`_item`) and
the diagnostics that say how they were found (AutoMem's fields, then Engram's).

The shapes are TypedDicts, not models: the body is encoded as built (router.FastJSONResponse),
in the order it was built, and router.RecallResponse documents it."""

from typing import Any, Literal, NotRequired, TypedDict

from app.artifacts.search import ArtifactsFound
from app.memories.schemas import public
from app.models import to_iso
from app.recall.outcome import Hit, RecallOutcome, StateCounts, describe
from app.recall.params import RecallRequest
from app.recall.select import uses_adaptive_floor


class ReplacedBy(TypedDict):
    id: str
    timestamp: str


class Passage(TypedDict):
    """A long result's part that matched: [start, end) in its content, in characters."""

    start: int
    end: int


class SourceTurn(TypedDict):
    """One transcript turn a fact came from (recall/source_turns.py)."""

    id: str
    content: str
    speaker: str | None
    role: str
    timestamp: str
    session_id: str | None


class Item(TypedDict):
    """One result; the NotRequired keys appear only when they apply."""

    id: str
    score: float
    final_score: float
    original_score: float
    match_score: float
    match_type: str
    source: Literal["qdrant", "graph"]
    memory: dict[str, Any]  # schemas.public(memory): MemoryOut's fields
    score_components: dict[str, float]
    relations: list[dict[str, Any]]  # always empty (AutoMem's field)
    state: Literal["current", "replaced"]
    _query: str  # the query that found it (queries, auto_decompose)
    state_replaces: NotRequired[str]
    replaced_by: NotRequired[ReplacedBy]
    passage: NotRequired[Passage]
    outside_tag_scope: NotRequired[bool]
    expanded: NotRequired[bool]
    related_to: NotRequired[list[str]]
    relation_score: NotRequired[float]
    expanded_from_entity: NotRequired[str]
    relation_type: NotRequired[str | None]
    source_turns: NotRequired[list[SourceTurn]]


class VectorSearch(TypedDict):
    enabled: bool
    matched: int


class TimeWindow(TypedDict):
    start: str
    end: str


class StateFilter(StateCounts):
    current_only: bool


class ScoreFilter(TypedDict):
    min_score: float
    adaptive_floor: bool
    relevance_floor: float
    filtered_count: int
    never_mentioned: NotRequired[list[str]]  # names the query asks about that nothing mentions


class ContextPriority(TypedDict):
    language: str | None
    priority_tags: list[str]
    priority_types: list[str]
    priority_ids: list[str]


class EntityExpansion(TypedDict):
    enabled: bool
    expanded_count: int
    entities_found: list[str]


class Expansion(TypedDict):
    enabled: bool
    seed_count: int
    expanded_count: int
    relation_limit: int
    expansion_limit: int
    respect_tags: bool


class Body(TypedDict):
    """The whole response (router.RecallResponse documents it)."""

    status: Literal["success"]
    query: str
    results: list[Item]
    count: int
    relevant: bool
    sort: str
    state_mode: str
    degraded: list[str]
    vector_search: VectorSearch
    time_window: TimeWindow | None
    tags: list[str]
    tag_mode: str
    tag_match: str
    state_filter: StateFilter
    score_filter: ScoreFilter
    unsupported: list[str]
    query_time_ms: float
    timings_ms: dict[str, float]
    context_priority: NotRequired[ContextPriority]
    scope_fallback: NotRequired[bool]
    queries: NotRequired[list[str]]
    entity_expansion: NotRequired[EntityExpansion]
    expansion: NotRequired[Expansion]
    # the tier's fields (tiers.Tier.described)
    memoryless: NotRequired[bool]
    personal_intelligence: NotRequired[bool]
    session_id: NotRequired[str | None]
    artifacts: NotRequired[ArtifactsFound]


def body(params: RecallRequest, outcome: RecallOutcome, floor: float) -> Body:
    """The response for `outcome`; `floor` is the configured relevance floor."""
    results = [_item(hit) for hit in outcome.hits]
    window = outcome.window
    unsupported = []
    if not outcome.time_understood:
        unsupported.append(f"time_query: {params.time_query!r} not understood")
    found: Body = {
        "status": "success",
        "query": params.query,
        "results": results,
        "count": len(results),
        "relevant": outcome.relevant,
        "sort": params.sort,
        "state_mode": params.state_mode,
        "degraded": outcome.degraded,
        "vector_search": {"enabled": "dense" in params.channels, "matched": outcome.vector_matched},
        "time_window": {"start": to_iso(window[0]), "end": to_iso(window[1])} if window else None,
        "tags": params.tags,
        "tag_mode": params.tag_mode,
        "tag_match": params.tag_match,
        "state_filter": {
            "current_only": params.state_mode == "current",
            **describe(outcome),
        },
        "score_filter": {
            "min_score": params.min_score,
            "adaptive_floor": uses_adaptive_floor(params),
            "relevance_floor": floor if params.relevance_floor is None else params.relevance_floor,
            "filtered_count": outcome.floored,
        },
        "unsupported": unsupported,
        "query_time_ms": outcome.elapsed_ms,
        "timings_ms": outcome.timings,
    }
    if outcome.unsaid:
        found["score_filter"]["never_mentioned"] = outcome.unsaid
    # the optional parts, in the order clients have always seen them
    if params.priority or params.priority_ids:
        found["context_priority"] = _context_priority(params)
    if outcome.scope_fallback:
        found["scope_fallback"] = True
    if len(outcome.queries) > 1:
        found["queries"] = outcome.queries
    if params.expand_entities:
        found["entity_expansion"] = _entity_expansion(outcome)
    if params.expand_relations:
        found["expansion"] = _expansion(params, outcome)
    return found


def _context_priority(params: RecallRequest) -> ContextPriority:
    return {
        "language": params.language,
        "priority_tags": list(params.priority.tags)[:10],
        "priority_types": list(params.priority.types),
        "priority_ids": params.priority_ids,
    }


def _entity_expansion(outcome: RecallOutcome) -> EntityExpansion:
    entities = [hit.via_entity for hit in outcome.hits if hit.via_entity]
    return {
        "enabled": True,
        "expanded_count": len(entities),
        "entities_found": list(dict.fromkeys(entities))[:10],
    }


def _expansion(params: RecallRequest, outcome: RecallOutcome) -> Expansion:
    return {
        "enabled": True,
        "seed_count": len(outcome.hits) - outcome.expanded,
        "expanded_count": outcome.expanded,
        "relation_limit": params.relation_limit,
        "expansion_limit": params.expansion_limit,
        "respect_tags": params.expand_respect_tags,
    }


def _item(hit: Hit) -> Item:
    scored = hit.scored
    item: Item = {
        "id": hit.memory.id,
        "score": round(scored.score, 6),
        "final_score": round(scored.score, 6),
        "original_score": round(scored.match, 6),
        "match_score": round(scored.match, 6),
        "match_type": hit.match_type,
        "source": "qdrant" if hit.match_type in ("vector", "keyword") else "graph",
        "memory": public(hit.memory),
        "score_components": {name: round(value, 6) for name, value in scored.components.items()},
        "relations": [],
        "state": "current",
        "_query": hit.query,
    }
    if hit.replaces:
        item["state_replaces"] = hit.replaces
    if hit.replaced_by is not None:
        later = hit.replaced_by
        item["state"] = "replaced"
        item["replaced_by"] = {"id": later.id, "timestamp": later.timestamp}
    if hit.passage is not None:
        item["passage"] = {"start": hit.passage[0], "end": hit.passage[1]}
    if hit.outside_tag_scope:
        item["outside_tag_scope"] = True
    if hit.related_to:
        item["expanded"] = True
        item["related_to"] = [hit.related_to]
        item["relation_score"] = item["score"]
        if hit.via_entity:
            item["expanded_from_entity"] = hit.via_entity
        else:
            item["relation_type"] = hit.relation_type
    return item
