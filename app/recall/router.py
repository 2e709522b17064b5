"""GET and POST /recall: AutoMem's parameters and response shape, plus Engram's extensions."""

from typing import Any, Literal

import pydantic_core
from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.deps import EmbedderDep, ScopeDep, SettingsDep, StoresDep
from app.memories.schemas import MemoryOut
from app.recall import answer
from app.recall import params as recall_params
from app.recall.dependencies import AccessDep, RecallConfigDep
from app.recall.params import RecallRequest

router = APIRouter(tags=["recall"])


class FastJSONResponse(JSONResponse):
    """JSONResponse rendered by pydantic-core's encoder: the same JSON, in a third of the time
    of json.dumps for a recall's nested results (NaN, which json.dumps refuses, becomes null)."""

    def render(self, content: Any) -> bytes:
        return pydantic_core.to_json(content, inf_nan_mode="null")


class ReplacedBy(BaseModel):
    id: str = Field(description="The later memory's id.")
    timestamp: str = Field(description="When it was said.")


class Passage(BaseModel):
    start: int = Field(description="Where the passage starts in the memory's content.")
    end: int = Field(description="Where it ends (exclusive), in characters (code points).")


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
    passage: Passage | None = Field(
        None,
        description="A long memory (over one embedded passage, ~900 characters): the passage "
        "that holds the most of the query's words, to quote instead of the whole; absent when "
        "none stands out. docs/recall.md, Passages of long memories.",
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
    return await _answer(stores, embedder, config, access, scope, raw, settings)


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
    return await _answer(stores, embedder, config, access, scope, body, settings)


async def _answer(
    stores: StoresDep,
    embedder: EmbedderDep,
    config: RecallConfigDep,
    access: AccessDep,
    scope: ScopeDep,
    raw: dict[str, Any],
    settings: SettingsDep,
) -> JSONResponse:
    body = await answer.answer(
        stores=stores,
        embedder=embedder,
        config=config,
        access=access,
        scope=scope,
        params=recall_params.parse(raw),
        artifact_budget=settings.artifact_search_embed_budget,
    )
    return FastJSONResponse(body)
