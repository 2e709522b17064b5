"""The lenient readers of /recall's parameters (a value may arrive as a list of strings from a
query string) and the bounds every input is held to (docs/recall.md, Limits)."""

import math
from datetime import datetime
from typing import Annotated, Any

from pydantic import BeforeValidator

from app.errors import BadRequest, PayloadTooLarge
from app.memories.fields import parse_embedding, parse_time
from app.validation import strict_bool

MAX_LIMIT = 100
MAX_QUERY_CHARS = 4096  # a question or a chat message; embedding reads its first 256 tokens
MAX_QUERIES = 10  # `queries`
MAX_ITEMS = 50  # tags, exclude_tags, context_tags, types, layers, roles, labels, channels
MAX_ITEM_CHARS = 256  # each of those, and time_query, language, active_path, context
MAX_IDS = MAX_LIMIT  # priority_ids
SORTS = ("score", "time_desc", "time_asc", "updated_desc", "updated_asc")
CHANNELS = ("dense", "bm25", "context", "window")
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
LIST_LIMITS = {"queries": MAX_QUERIES, "priority_ids": MAX_IDS}
TEXTS = (
    "session_id",
    "time_query",
    "language",
    "active_path",
    "context",
    "tag_mode",
    "tag_match",
    "sort",
    "state_mode",
    "recency_bias",
)


# --- Lenient readers (a value may arrive as a list of strings from a query string) ----------


def _last(value: Any) -> Any:
    return value[-1] if isinstance(value, list) and value else value


def _flat(value: Any) -> list[str]:
    """Repeated or comma-separated values as one list of stripped strings."""
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if item is None:
            continue
        out += [part.strip() for part in str(item).split(",") if part.strip()]
    return out


def _text(value: Any) -> str | None:
    return str(_last(value) or "").strip() or None


def _as_bool(value: Any, default: bool, name: str) -> bool:
    """true/false/1/0 (any case); absent or empty: the default; anything else is a 400."""
    value = _last(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    try:
        return strict_bool(value)
    except ValueError as exc:
        raise BadRequest(f"Invalid '{name}': {exc}") from None


def _bool(default: bool) -> BeforeValidator:
    return BeforeValidator(
        lambda v, info: _as_bool(v, default, str(info.field_name)), json_schema_input_type=bool
    )


def _int(default: int, low: int, high: int) -> BeforeValidator:
    def read(value: Any) -> int:
        try:
            number = int(_last(value))
        except (TypeError, ValueError):
            return default
        return min(max(number, low), high)

    return BeforeValidator(read, json_schema_input_type=int)


def _unit(value: Any) -> float | None:
    """A number clamped to [0, 1]; None if there is none (NaN is none: it would compare false
    with every score, so that `min_score=nan` filtered nothing and answered `null`)."""
    try:
        number = float(_last(value))
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else min(max(number, 0.0), 1.0)


def _choice(allowed: tuple[str, ...], default: str) -> BeforeValidator:
    def read(value: Any) -> str:
        text = str(_last(value) or default).strip().lower()
        return text if text in allowed else default

    return BeforeValidator(read, json_schema_input_type=str)


def _time(name: str) -> BeforeValidator:
    def read(value: Any) -> datetime | None:
        value = _last(value)
        if value in (None, ""):
            return None
        try:
            return parse_time(value)
        except ValueError:
            raise BadRequest(
                f"Invalid {name} time: {value!r} is not an ISO-8601 timestamp"
            ) from None

    return BeforeValidator(read, json_schema_input_type=str | None)


def _query(value: Any, name: str = "query") -> str:
    text = str(_last(value) or "").strip()
    if len(text) > MAX_QUERY_CHARS:
        raise PayloadTooLarge(
            f"'{name}' is too long: {len(text)} characters; the limit is {MAX_QUERY_CHARS}"
        )
    return text


def _queries(value: Any) -> list[str]:
    return [_query(q, "queries") for q in _flat(value)]


def _labels(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in value.items()]
    pairs = _flat(value)
    bad = [p for p in pairs if "=" not in p]
    if bad:
        raise BadRequest(f"Invalid 'labels': use key=value pairs (got {bad[0]!r})")
    return pairs


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


def _state_mode(value: Any) -> str:
    mode = str(_last(value) or "current").strip().lower()
    if mode not in ("current", "history"):
        raise BadRequest("'state_mode' must be 'current' or 'history'")
    return mode


Text = Annotated[str | None, BeforeValidator(_text, json_schema_input_type=str | None)]
Words = Annotated[list[str], BeforeValidator(_flat, json_schema_input_type=list[str] | None)]
Unit = Annotated[float, BeforeValidator(lambda v: _unit(v) or 0.0, json_schema_input_type=float)]


# --- The request ------------------------------------------------------------------------------
