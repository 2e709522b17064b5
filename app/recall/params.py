"""/recall's request: one pydantic model for GET's query string, POST's body and the OpenAPI
document, with AutoMem's names, aliases, defaults and clamping (automem.md §4.9).

GET sends the fields as query parameters (lists repeated or comma-separated), POST as a JSON body;
`parse` reads either into a RecallRequest. AutoMem's leniency is kept where clients rely on it (an
invalid `sort` becomes `score`, `limit` is clamped, a list may be one comma-separated string, a
repeated scalar takes its last value); its errors are kept too (400 for an invalid `state_mode`,
`start`, `end` or `embedding`). Every input is bounded (docs/recall.md, Limits).
"""

from datetime import datetime
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from app.errors import BadRequest
from app.recall.hints import context_priority, language_of
from app.recall.param_readers import (
    ALIASES,
    CHANNELS,
    LIST_LIMITS,
    MAX_ITEM_CHARS,
    MAX_ITEMS,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    SORTS,
    TEXTS,
    Text,
    Unit,
    Words,
    _as_bool,
    _bool,
    _channels,
    _choice,
    _embedding,
    _flat,
    _int,
    _labels,
    _last,
    _queries,
    _query,
    _state_mode,
    _time,
    _unit,
)
from app.recall.rank import ContextPriority


class RecallRequest(BaseModel):
    """POST /recall body; GET takes the same names as query parameters (lists comma-separated).
    AutoMem's aliases are accepted too (order_by, time, expand, lang, file_path, …)."""

    model_config = ConfigDict(extra="allow")

    query: Annotated[str, BeforeValidator(_query, json_schema_input_type=str)] = Field(
        "", description=f"What to look for (at most {MAX_QUERY_CHARS} characters)."
    )
    queries: Annotated[
        list[str], BeforeValidator(_queries, json_schema_input_type=list[str] | None)
    ] = Field(default_factory=list, description="Several queries, merged and deduped.")
    limit: Annotated[int, _int(5, 1, MAX_LIMIT)] = Field(
        5, description="Results wanted, clamped to 1–100."
    )
    sort: Annotated[str, _choice(SORTS, "score")] = Field(
        "score", description="score, time_desc, time_asc, updated_desc, updated_asc."
    )
    embedding: Annotated[
        list[float] | None, BeforeValidator(_embedding, json_schema_input_type=list[float] | None)
    ] = Field(None, description="A query vector instead of text.")
    time_query: Text = Field(None, description="e.g. yesterday, last 3 days, in March 2023.")
    start: Annotated[datetime | None, _time("start")] = Field(
        None, description="Window start (ISO-8601); wins over time_query."
    )
    end: Annotated[datetime | None, _time("end")] = Field(
        None, description="Window end (ISO-8601)."
    )
    tags: Words = Field(default_factory=list, description="Tag filter (hard).")
    tag_mode: Annotated[str, _choice(("any", "all"), "any")] = Field(
        "any", description="any or all."
    )
    tag_match: Annotated[str, _choice(("prefix", "exact"), "prefix")] = Field(
        "prefix", description="prefix (hierarchical) or exact."
    )
    exclude_tags: Words = Field(default_factory=list, description="Drop memories with these tags.")
    labels: Annotated[
        list[str], BeforeValidator(_labels, json_schema_input_type=dict[str, Any] | None)
    ] = Field(default_factory=list, description="Label filter: every pair must match.")
    types: Words = Field(
        default_factory=list,
        validation_alias=AliasChoices("type", "types"),
        description="Only these memory types (`type` or `types`).",
    )
    layers: Words = Field(
        default_factory=list,
        validation_alias=AliasChoices("layer", "layers"),
        description="transcript, raw and/or consolidated.",
    )
    include_source_turns: Annotated[bool, _bool(False)] = Field(
        False,
        description="Each /remember fact in the results carries `source_turns`: the transcript "
        "turns it came from (id, content, speaker, role, timestamp).",
    )
    include_artifacts: Annotated[bool, _bool(False)] = Field(
        False,
        description="Also search the chunks of the caller's text artifacts; the best (at most "
        "`limit`, ≤ 20) come back under `artifacts`, apart from `results`.",
    )
    roles: Words = Field(
        default_factory=list,
        validation_alias=AliasChoices("role", "roles"),
        description="user and/or assistant.",
    )
    state_mode: Annotated[str, BeforeValidator(_state_mode, json_schema_input_type=str)] = Field(
        "current", description="current (default) or history; `current_only=false` = history."
    )
    include_decayed: Annotated[bool, _bool(False)] = Field(
        False, description="Include memories past their TTL."
    )
    include_archived: Annotated[bool, _bool(False)] = Field(
        False, description="Include archived memories."
    )
    min_score: Unit = Field(0.0, description="Drop results whose final score is lower.")
    relevance_floor: Annotated[
        float | None, BeforeValidator(_unit, json_schema_input_type=float | None)
    ] = Field(
        None,
        description="Similarity below which a memory sharing no term with the query is dropped; "
        "0 turns the floor and the relevance gate off (docs/recall.md).",
    )
    recency_bias: Annotated[str, _choice(("off", "on", "auto"), "off")] = Field(
        "off",
        description="Accepted for AutoMem compatibility and ignored: recency is always a term "
        "of the score (RECALL_WEIGHT_RECENCY).",
    )
    channels: Annotated[
        list[str], BeforeValidator(_channels, json_schema_input_type=list[str] | None)
    ] = Field(default_factory=lambda: list(CHANNELS), description="dense, bm25 and/or context.")
    rerank: Annotated[bool, _bool(True)] = Field(
        True, description="false: pure fused match order (evaluation)."
    )
    expand_relations: Annotated[bool, _bool(False)] = Field(
        False, description="Append neighbours over relationships."
    )
    expand_entities: Annotated[bool, _bool(False)] = Field(
        False, description="Append memories sharing an entity."
    )
    relation_limit: Annotated[int, _int(5, 1, 200)] = Field(
        5, description="Expansions per result, 1–200."
    )
    expansion_limit: Annotated[int, _int(25, 1, 500)] = Field(
        25, description="Expansions in all, 1–500."
    )
    expand_min_importance: Unit = Field(0.0, description="Expansions' least importance.")
    expand_min_strength: Unit = Field(0.0, description="Expansions' least relation strength.")
    expand_respect_tags: Annotated[bool, _bool(False)] = Field(
        False, description="Expansions obey the tag filter too."
    )
    as_of: Annotated[datetime | None, _time("as_of")] = Field(
        None, description="Answer from the states current at this time."
    )
    context_tags: Words = Field(default_factory=list, description="Favour these tags (soft).")
    context_types: Words = Field(default_factory=list, description="Favour these types (soft).")
    language: Text = Field(None, description="Favour this language's style memories.")
    active_path: Text = Field(None, description="A file path; its extension → language.")
    context: Text = Field(None, description="A context label, favoured as a tag.")
    priority_ids: Words = Field(
        default_factory=list, description="Ids guaranteed the first places."
    )
    scope_fallback: Annotated[bool, _bool(False)] = Field(
        False, description="Fewer results than limit inside `tags` → fill from outside them."
    )
    auto_decompose: Annotated[bool, _bool(False)] = Field(
        False, description="Also run sub-queries: the things the query names, its topic words."
    )
    # AutoMem's gap-based tail cut. Off by default, unlike AutoMem: it cut valid hits there
    # (automem.md §15, #128); Engram's relevance floor drops unrelated memories instead.
    adaptive_floor: Annotated[bool, _bool(False)] = Field(
        False, description="AutoMem's gap-based tail cut of the results (off by default)."
    )
    session_id: Text = Field(
        None,
        description="The conversation asking: with Personal Intelligence off only its memories "
        "(and pinned ones) are recalled; a memoryless session recalls nothing.",
    )
    memoryless: Annotated[bool, _bool(False)] = Field(
        False, description="Read nothing personal: an empty answer, marked `memoryless`."
    )
    # Derived from the context hints (context_tags, context_types, language, context).
    priority: SkipJsonSchema[ContextPriority] = Field(default_factory=ContextPriority)

    @model_validator(mode="before")
    @classmethod
    def _normalised(cls, raw: Any) -> Any:
        """Aliases resolved (the canonical name wins), `type` and `types` merged, the legacy
        `current_only` applied, every list and text bounded."""
        if not isinstance(raw, dict):
            raise BadRequest("The recall request must be an object")
        data = normalise(raw)
        data.pop("priority", None)  # derived, never given
        if "type" in data and "types" in data:
            data["types"] = _flat(data.pop("type")) + _flat(data["types"])
        if "current_only" in data:  # legacy flag, wins over state_mode (AutoMem)
            current = _as_bool(data.pop("current_only"), True, "current_only")
            data["state_mode"] = "current" if current else "history"
        _bounded(data)
        return data

    @model_validator(mode="after")
    def _hints(self) -> "RecallRequest":
        """Context hints become a soft boost profile; priority ids are kept once each."""
        self.language = language_of(self.language, self.active_path)
        try:
            self.priority = context_priority(
                self.context_tags,
                self.context_types,
                language=self.language,
                context=self.context,
            )
        except ValueError as exc:
            raise BadRequest(f"Invalid 'context_types': {exc}") from None
        self.priority_ids = list(dict.fromkeys(self.priority_ids))
        return self


def normalise(raw: dict[str, Any]) -> dict[str, Any]:
    """Aliases resolved; the canonical name wins over an alias."""
    data: dict[str, Any] = {}
    for key, value in raw.items():
        data.setdefault(ALIASES.get(key, key), value)
    for key, value in raw.items():
        if key not in ALIASES:
            data[key] = value
    return data


def _bounded(data: dict[str, Any]) -> None:
    """400 naming the limit for a list with too many items, or an item or text too long."""
    lists = (
        "queries",
        "tags",
        "exclude_tags",
        "context_tags",
        "context_types",
        "type",
        "types",
        "layer",
        "layers",
        "role",
        "roles",
        "labels",
        "channels",
        "priority_ids",
    )
    for name in lists:
        value = data.get(name)
        items = [f"{k}={v}" for k, v in value.items()] if isinstance(value, dict) else _flat(value)
        limit = LIST_LIMITS.get(name, MAX_ITEMS)
        if len(items) > limit:
            raise BadRequest(f"Too many '{name}': {len(items)}; the limit is {limit}")
        longest = max((len(str(item)) for item in items), default=0)
        if name != "queries" and longest > MAX_ITEM_CHARS:
            raise BadRequest(f"An item of '{name}' is too long; the limit is {MAX_ITEM_CHARS}")
    for name in TEXTS:
        if len(str(_last(data.get(name)) or "")) > MAX_ITEM_CHARS:
            raise BadRequest(f"'{name}' is too long; the limit is {MAX_ITEM_CHARS} characters")


def parse(raw: dict[str, Any]) -> RecallRequest:
    """A RecallRequest from query parameters (lists of strings) or a JSON body."""
    return RecallRequest.model_validate(raw)
