"""GET and POST /recall: AutoMem's parameters and response shape, plus Engram's extensions."""

import time
from typing import Any, Literal

import pydantic_core
from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.deps import EmbedderDep, ScopeDep, SettingsDep, StoresDep
from app.errors import BadRequest
from app.memories.schemas import MemoryOut, public
from app.metrics import observe_recall_steps
from app.models import to_iso
from app.recall import artifacts, service, source_turns, steps, tiers
from app.recall import params as recall_params
from app.recall.dependencies import AccessDep, RecallConfigDep
from app.recall.outcome import Hit, RecallOutcome, describe
from app.recall.params import RecallRequest
from app.recall.select import uses_adaptive_floor

router = APIRouter(tags=["recall"])


class FastJSONResponse(JSONResponse):
    """JSONResponse rendered by pydantic-core's encoder: the same JSON, in a third of the time
    of json.dumps for a recall's nested results (NaN, which json.dumps refuses, becomes null)."""

    def render(self, content: Any) -> bytes:
        return pydantic_core.to_json(content, inf_nan_mode="null")


class ReplacedBy(BaseModel):
    id: str = Field(description="The later memory's id.")
    timestamp: str = Field(description="When it was said.")


class RecallItem(BaseModel):
    id: str = Field(description="The memory's id.")
    score: float = Field(description="Final score (same as final_score).")
    final_score: float = Field(description="Final score.")
    original_score: float = Field(description="The fused match score before adjustments.")
    match_score: float = Field(description="The fused match score.")
    match_type: str = Field(
        description="vector, keyword, tag, relation, entity_expansion, priority_id or "
        "state_replacement."
    )
    source: Literal["qdrant", "graph"] = Field(description="Where the candidate came from.")
    memory: MemoryOut = Field(description="The memory, read from the graph.")
    score_components: dict[str, float] = Field(description="Every term of the final score.")
    relations: list[dict[str, Any]] = Field(description="Related memories (expansions; none yet).")
    state_replaces: str | None = Field(None, description="The superseded memory this replaces.")
    state: Literal["current", "replaced"] = Field(
        "current",
        description="replaced: a newer fact superseded what this turn said (the current value "
        "is `replaced_by`). docs/recall.md, The current value first.",
    )
    replaced_by: ReplacedBy | None = Field(
        None, description="state replaced: the newer memory and its timestamp."
    )
    source_turns: list[dict[str, Any]] | None = Field(
        None, description="include_source_turns: the transcript turns a fact came from."
    )


class RecallResponse(BaseModel):
    status: Literal["success"] = "success"
    query: str = Field(description="The query.")
    results: list[RecallItem] = Field(
        description="Best first; at most `limit`, then expansions (marked `expanded`) if asked."
    )
    count: int = Field(description="Number of results.")
    relevant: bool = Field(
        description="false when a query was asked and nothing stored matches it on its own "
        "evidence (results is then empty: a chat front-end should inject nothing); true "
        "otherwise. See docs/recall.md, Relevance."
    )
    sort: str = Field(description="The order used.")
    state_mode: str = Field(description="current or history.")
    degraded: list[str] = Field(description="Channels that were unavailable (e.g. qdrant).")
    vector_search: dict[str, Any] = Field(description="{enabled, matched}.")
    time_window: dict[str, Any] | None = Field(None, description="{start, end} if any.")
    state_filter: dict[str, Any] = Field(description="Suppressed and replaced counts.")
    score_filter: dict[str, Any] = Field(
        description="min_score, relevance floor, filtered count; never_mentioned: the names the "
        "query asks about that no memory mentions (then nothing is relevant)."
    )
    unsupported: list[str] = Field(description="What was accepted but not understood (time_query).")
    queries: list[str] | None = Field(
        None, description="Every query run, when more than one (queries, auto_decompose)."
    )
    query_time_ms: float = Field(description="Server time spent.")
    timings_ms: dict[str, float] = Field(
        description="Milliseconds per step of the recall, one after the other (their sum is "
        "query_time_ms, up to rounding): tier, prepare, embed, search, second_pass, fuse, graph, "
        "state, evidence, score, expansion, priority, respond (as_of or browse instead of the "
        "search steps when nothing was searched); see docs/recall.md, Timings."
    )
    memoryless: bool | None = Field(
        None,
        description="true: the request (`memoryless`) or its session is memoryless, so nothing "
        "was read and results is empty.",
    )
    personal_intelligence: bool | None = Field(
        None,
        description="false: the user turned Personal Intelligence off, so only the memories of "
        "`session_id` and pinned ones were kept.",
    )
    session_id: str | None = Field(None, description="The session, when that is false.")
    artifacts: dict[str, Any] | None = Field(
        None,
        description="include_artifacts: {results: [{memory_id, artifact, offset, length, "
        "content, score}], searched, pending, skipped} — the best chunks of text artifacts; "
        "`pending` counts artifacts not yet indexed (searched once their index is built), "
        "`skipped` those whose file or index failed (left out, logged, shown by /health).",
    )


@router.get("/recall", response_model=RecallResponse)
async def recall_get(
    request: Request,
    stores: StoresDep,
    embedder: EmbedderDep,
    config: RecallConfigDep,
    access: AccessDep,
    scope: ScopeDep,
    settings: SettingsDep,
) -> JSONResponse:
    """Finds memories by meaning and keywords (AutoMem's GET /recall parameters)."""
    raw: dict[str, Any] = {}
    for key, value in request.query_params.multi_items():
        raw.setdefault(key, []).append(value)
    return await _recall(stores, embedder, config, access, scope, raw, settings)


# The body is parsed as leniently as GET's query string (AutoMem clamps or defaults bad values
# instead of refusing them), so it arrives as a plain object; the documented schema is this one.
RECALL_BODY_SCHEMA = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": RecallRequest.model_json_schema()}},
    }
}


@router.post("/recall", response_model=RecallResponse, openapi_extra=RECALL_BODY_SCHEMA)
async def recall_post(
    stores: StoresDep,
    embedder: EmbedderDep,
    config: RecallConfigDep,
    access: AccessDep,
    scope: ScopeDep,
    settings: SettingsDep,
    body: dict[str, Any] = Body(...),
) -> JSONResponse:
    """The same as GET /recall, with a JSON body (see RecallRequest)."""
    return await _recall(stores, embedder, config, access, scope, body, settings)


async def _recall(
    stores: StoresDep,
    embedder: EmbedderDep,
    config: RecallConfigDep,
    access: AccessDep,
    scope: ScopeDep,
    raw: dict[str, Any],
    settings: SettingsDep,
) -> JSONResponse:
    params = recall_params.parse(raw)
    if params.embedding is not None and len(params.embedding) != embedder.dimension:
        raise BadRequest(
            f"Invalid 'embedding': must contain exactly {embedder.dimension} values "
            f"({len(params.embedding)} provided)"
        )
    started = time.perf_counter()
    tier = await tiers.tier_of(
        stores.graph, scope, session_id=params.session_id, memoryless=params.memoryless
    )
    tier_ms = (time.perf_counter() - started) * 1000
    if tier.memoryless:  # nothing searched, reinforced or logged
        nothing = RecallOutcome(hits=[], relevant=False)
        return FastJSONResponse(
            {**_response(params, nothing, config.relevance_floor), **tier.described()}
        )
    outcome = await service.recall(
        stores=stores, embedder=embedder, scope=scope, params=params, config=config
    )
    responding = time.perf_counter()
    steps.add(outcome.timings, steps.TIER, tier_ms)
    tiers.keep_visible(outcome, tier)
    access.record(scope.user_id, [hit.memory.id for hit in outcome.hits])
    body = {**_response(params, outcome, config.relevance_floor), **tier.described()}
    if params.include_source_turns:
        await source_turns.attach(stores.graph, scope, body["results"])
    artifacts_ms = 0.0
    if params.include_artifacts:
        searching = time.perf_counter()
        body["artifacts"] = await artifacts.search(
            stores,
            embedder,
            scope,
            params,
            floor=config.relevance_floor,
            budget=settings.artifact_search_embed_budget,
        )
        artifacts_ms = (time.perf_counter() - searching) * 1000
        steps.add(outcome.timings, steps.ARTIFACTS, artifacts_ms)
        responding += artifacts_ms / 1000
    respond_ms = (time.perf_counter() - responding) * 1000
    steps.add(outcome.timings, steps.RESPOND, respond_ms)
    # the whole of the server's time: the tier before the recall, the response's body after it
    body["query_time_ms"] = round(outcome.elapsed_ms + tier_ms + artifacts_ms + respond_ms, 2)
    observe_recall_steps(outcome.timings)
    return FastJSONResponse(body)


def _response(
    params: recall_params.RecallRequest, outcome: RecallOutcome, floor: float
) -> dict[str, Any]:
    results = [_item(hit) for hit in outcome.hits]
    window = outcome.window
    unsupported = []
    if not outcome.time_understood:
        unsupported.append(f"time_query: {params.time_query!r} not understood")
    return {
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
            **({"never_mentioned": outcome.unsaid} if outcome.unsaid else {}),
        },
        "unsupported": unsupported,
        "query_time_ms": outcome.elapsed_ms,
        "timings_ms": outcome.timings,
        **_context_priority(params),
        **({"scope_fallback": True} if outcome.scope_fallback else {}),
        **({"queries": outcome.queries} if len(outcome.queries) > 1 else {}),
        **_expansion(params, outcome),
    }


def _context_priority(params: recall_params.RecallRequest) -> dict[str, Any]:
    if not (params.priority or params.priority_ids):
        return {}
    return {
        "context_priority": {
            "language": params.language,
            "priority_tags": list(params.priority.tags)[:10],
            "priority_types": list(params.priority.types),
            "priority_ids": params.priority_ids,
        }
    }


def _expansion(params: recall_params.RecallRequest, outcome: RecallOutcome) -> dict[str, Any]:
    described = {}
    if params.expand_entities:
        by_entity = [hit for hit in outcome.hits if hit.via_entity]
        described["entity_expansion"] = {
            "enabled": True,
            "expanded_count": len(by_entity),
            "entities_found": list(dict.fromkeys(hit.via_entity for hit in by_entity))[:10],
        }
    if not params.expand_relations:
        return described
    return {
        **described,
        "expansion": {
            "enabled": True,
            "seed_count": len(outcome.hits) - outcome.expanded,
            "expanded_count": outcome.expanded,
            "relation_limit": params.relation_limit,
            "expansion_limit": params.expansion_limit,
            "respect_tags": params.expand_respect_tags,
        },
    }


def _item(hit: Hit) -> dict[str, Any]:
    scored = hit.scored
    item = {
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
        item.update(state="replaced", replaced_by={"id": later.id, "timestamp": later.timestamp})
    if hit.outside_tag_scope:
        item["outside_tag_scope"] = True
    if hit.related_to:
        item.update(expanded=True, related_to=[hit.related_to], relation_score=item["score"])
        if hit.via_entity:
            item["expanded_from_entity"] = hit.via_entity
        else:
            item["relation_type"] = hit.relation_type
    return item
