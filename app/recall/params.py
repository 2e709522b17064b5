"""/recall parameters: AutoMem's names, aliases, defaults and clamping (automem.md §4.9).

GET sends them as query parameters (lists repeated or comma-separated), POST as a JSON body;
both end up here as one RecallParams. AutoMem's leniency is kept where clients rely on it (an
invalid `sort` becomes `score`, `limit` is clamped); its errors are kept too (400 for an invalid
`state_mode`, `start`, `end` or `embedding`).
"""

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.errors import BadRequest, PayloadTooLarge
from app.memories.fields import parse_embedding, parse_time
from app.recall.hints import context_priority, language_of
from app.recall.rank import ContextPriority

MAX_LIMIT = 100
# Every input is bounded, so that one request cannot hold the service (docs/recall.md, Limits).
MAX_QUERY_CHARS = 4096  # a question or a chat message; embedding reads its first 256 tokens
MAX_QUERIES = 10  # `queries`
MAX_ITEMS = 50  # tags, exclude_tags, context_tags, types, layers, roles, labels, channels
MAX_ITEM_CHARS = 256  # each of those, and time_query, language, active_path, context
MAX_IDS = MAX_LIMIT  # priority_ids
TRUE = {"1", "true", "yes", "y", "on"}
FALSE = {"0", "false", "no", "off", "n"}
SORTS = {"score", "time_desc", "time_asc", "updated_desc", "updated_asc"}
CHANNELS = ("dense", "bm25", "context")
ALIASES = {
    "order_by": "sort",
    "time": "time_query",
    "expand_associations": "expand_relations",
    "expand": "expand_relations",
    "entity_expansion": "expand_entities",
    "relation_expansion_limit": "expansion_limit",
    "lang": "language",
    "file_path": "active_path",
    "focus_path": "active_path",
}


@dataclass
class RecallParams:
    query: str = ""
    queries: list[str] = field(default_factory=list)
    limit: int = 5
    sort: str = "score"
    embedding: list[float] | None = None
    time_query: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    tags: list[str] = field(default_factory=list)
    tag_mode: str = "any"
    tag_match: str = "prefix"
    exclude_tags: list[str] = field(default_factory=list)
    min_score: float = 0.0
    relevance_floor: float | None = None  # None: the configured default
    recency_bias: str = "off"
    state_mode: str = "current"
    include_decayed: bool = False
    include_archived: bool = False
    as_of: datetime | None = None
    labels: list[str] = field(default_factory=list)  # "key=value" pairs, all must match
    types: list[str] = field(default_factory=list)
    layers: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    expand_relations: bool = False
    expand_entities: bool = False
    relation_limit: int = 5
    expansion_limit: int = 25
    expand_min_importance: float = 0.0
    expand_min_strength: float = 0.0
    expand_respect_tags: bool = False
    channels: list[str] = field(default_factory=lambda: list(CHANNELS))
    rerank: bool = True
    priority: ContextPriority = field(default_factory=ContextPriority)
    language: str | None = None
    priority_ids: list[str] = field(default_factory=list)
    scope_fallback: bool = False
    auto_decompose: bool = False
    # AutoMem's gap-based tail cut. Off by default, unlike AutoMem: it cut valid hits there
    # (automem.md §15, #128); Engram's relevance floor drops unrelated memories instead.
    adaptive_floor: bool = False


def _flat(value: Any) -> list[str]:
    """Repeated or comma-separated values as one list of stripped strings."""
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if item is None:
            continue
        out += [part.strip() for part in str(item).split(",") if part.strip()]
    return out


def _last(value: Any) -> Any:
    return value[-1] if isinstance(value, list) and value else value


def _bool(value: Any, default: bool) -> bool:
    value = _last(value)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if value is not None else ""
    return True if text in TRUE else False if text in FALSE else default


def _int(value: Any, default: int, low: int, high: int) -> int:
    try:
        number = int(_last(value))
    except (TypeError, ValueError):
        return default
    return min(max(number, low), high)


def _unit(value: Any) -> float | None:
    """A number clamped to [0, 1]; None if there is none (NaN is none: it would compare false
    with every score, so that `min_score=nan` filtered nothing and answered `null`)."""
    try:
        number = float(_last(value))
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else min(max(number, 0.0), 1.0)


def _time(name: str, value: Any) -> datetime | None:
    value = _last(value)
    if value in (None, ""):
        return None
    try:
        return parse_time(value)
    except ValueError:
        raise BadRequest(f"Invalid {name} time: {value!r} is not an ISO-8601 timestamp") from None


def _labels(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in value.items()]
    pairs = _flat(value)
    bad = [p for p in pairs if "=" not in p]
    if bad:
        raise BadRequest(f"Invalid 'labels': use key=value pairs (got {bad[0]!r})")
    return pairs


def normalise(raw: dict[str, Any]) -> dict[str, Any]:
    """Aliases resolved; the canonical name wins over an alias."""
    data: dict[str, Any] = {}
    for key, value in raw.items():
        data.setdefault(ALIASES.get(key, key), value)
    for key, value in raw.items():
        if key not in ALIASES:
            data[key] = value
    return data


def parse(raw: dict[str, Any]) -> RecallParams:
    """RecallParams from query parameters or a JSON body (already a dict)."""
    data = normalise(raw)
    params = RecallParams()
    params.query = _query(data.get("query"))
    params.queries = [_query(q, "queries") for q in _flat(data.get("queries"))]
    _bounded(data)
    params.limit = _int(data.get("limit"), 5, 1, MAX_LIMIT)
    sort = str(_last(data.get("sort")) or "score").lower()
    params.sort = sort if sort in SORTS else "score"
    params.embedding = _embedding(data.get("embedding"))
    params.time_query = str(_last(data.get("time_query")) or "").strip() or None
    params.start = _time("start", data.get("start"))
    params.end = _time("end", data.get("end"))
    params.tags = _flat(data.get("tags"))
    params.tag_mode = _choice(data.get("tag_mode"), ("any", "all"), "any")
    params.tag_match = _choice(data.get("tag_match"), ("prefix", "exact"), "prefix")
    params.exclude_tags = _flat(data.get("exclude_tags"))
    params.min_score = _unit(data.get("min_score")) or 0.0
    params.relevance_floor = _unit(data.get("relevance_floor"))
    params.recency_bias = _choice(data.get("recency_bias"), ("off", "on", "auto"), "off")
    params.state_mode = _state_mode(data)
    params.include_decayed = _bool(data.get("include_decayed"), False)
    params.include_archived = _bool(data.get("include_archived"), False)
    params.as_of = _time("as_of", data.get("as_of"))
    params.labels = _labels(data.get("labels"))
    params.types = _flat(data.get("type")) + _flat(data.get("types"))
    params.layers = _flat(data.get("layer"))
    params.roles = _flat(data.get("role"))
    params.expand_relations = _bool(data.get("expand_relations"), False)
    params.expand_entities = _bool(data.get("expand_entities"), False)
    params.relation_limit = _int(data.get("relation_limit"), 5, 1, 200)
    params.expansion_limit = _int(data.get("expansion_limit"), 25, 1, 500)
    params.expand_min_importance = _unit(data.get("expand_min_importance")) or 0.0
    params.expand_min_strength = _unit(data.get("expand_min_strength")) or 0.0
    params.expand_respect_tags = _bool(data.get("expand_respect_tags"), False)
    params.channels = _channels(data.get("channels"))
    params.rerank = _bool(data.get("rerank"), True)
    params.auto_decompose = _bool(data.get("auto_decompose"), False)
    params.adaptive_floor = _bool(data.get("adaptive_floor"), False)
    _hints(params, data)
    return params


def _hints(params: RecallParams, data: dict[str, Any]) -> None:
    """Context hints (soft boosts), guaranteed ids and the tag-scope fallback."""
    language = str(_last(data.get("language")) or "").strip() or None
    path = str(_last(data.get("active_path")) or "").strip() or None
    params.language = language_of(language, path)
    context = str(_last(data.get("context")) or "").strip() or None
    try:
        params.priority = context_priority(
            _flat(data.get("context_tags")), _flat(data.get("context_types")),
            language=params.language, context=context,
        )  # fmt: skip
    except ValueError as exc:
        raise BadRequest(f"Invalid 'context_types': {exc}") from None
    params.priority_ids = list(dict.fromkeys(_flat(data.get("priority_ids"))))[:MAX_LIMIT]
    params.scope_fallback = _bool(data.get("scope_fallback"), False)


def _query(value: Any, name: str = "query") -> str:
    text = str(_last(value) or "").strip()
    if len(text) > MAX_QUERY_CHARS:
        raise PayloadTooLarge(
            f"'{name}' is too long: {len(text)} characters; the limit is {MAX_QUERY_CHARS}"
        )
    return text


LISTS = ("queries", "tags", "exclude_tags", "context_tags", "context_types", "type", "types",
         "layer", "role", "labels", "channels", "priority_ids")  # fmt: skip
TEXTS = ("time_query", "language", "active_path", "context", "tag_mode", "tag_match", "sort",
         "state_mode", "recency_bias")  # fmt: skip


def _bounded(data: dict[str, Any]) -> None:
    """400 naming the limit for a list with too many items, or an item or text too long."""
    for name in LISTS:
        value = data.get(name)
        items = [f"{k}={v}" for k, v in value.items()] if isinstance(value, dict) else _flat(value)
        limit = {"queries": MAX_QUERIES, "priority_ids": MAX_IDS}.get(name, MAX_ITEMS)
        if len(items) > limit:
            raise BadRequest(f"Too many '{name}': {len(items)}; the limit is {limit}")
        longest = max((len(str(item)) for item in items), default=0)
        if name != "queries" and longest > MAX_ITEM_CHARS:
            raise BadRequest(f"An item of '{name}' is too long; the limit is {MAX_ITEM_CHARS}")
    for name in TEXTS:
        if len(str(_last(data.get(name)) or "")) > MAX_ITEM_CHARS:
            raise BadRequest(f"'{name}' is too long; the limit is {MAX_ITEM_CHARS} characters")


def _choice(value: Any, allowed: tuple[str, ...], default: str) -> str:
    text = str(_last(value) or default).strip().lower()
    return text if text in allowed else default


def _state_mode(data: dict[str, Any]) -> str:
    if "current_only" in data:  # legacy flag, wins over state_mode (AutoMem)
        return "current" if _bool(data["current_only"], True) else "history"
    mode = str(_last(data.get("state_mode")) or "current").strip().lower()
    if mode not in ("current", "history"):
        raise BadRequest("'state_mode' must be 'current' or 'history'")
    return mode


def _embedding(value: Any) -> list[float] | None:
    value = _last(value) if not isinstance(value, list) or isinstance(_last(value), str) else value
    if value in (None, ""):
        return None
    try:
        return parse_embedding(value)
    except ValueError as exc:
        raise BadRequest(f"Invalid 'embedding': {exc}") from None


def _channels(value: Any) -> list[str]:
    names = [c.lower() for c in _flat(value)] or list(CHANNELS)
    unknown = [c for c in names if c not in CHANNELS]
    if unknown:
        raise BadRequest(f"Invalid 'channels': {unknown[0]!r}; use {', '.join(CHANNELS)}")
    return names
