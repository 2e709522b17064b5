"""Field types shared by the memory request models, each with its own clear 400 message.

Validators run in "before" mode so that the message is ours, not pydantic's, and names the rule
that was broken. The error handler in `app.main` adds the field's name.
"""

import math
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, WithJsonSchema

from app.models import IMPORTANCE_LEVELS, TYPE_ALIASES, MemoryType
from app.scope import AGENT_ID
from app.validation import MAX_METADATA_BYTES, check_free_json, check_text

MAX_CONTENT_CHARS = 2000
MAX_TAGS = 50
MAX_TAG_CHARS = 128
MAX_LABELS = 20
LABEL_KEY = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
MAX_LABEL_STRING_CHARS = 500
MAX_LABEL_LIST_ITEMS = 50
MAX_CATEGORIES = 50
MAX_CATEGORY_CHARS = 128


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number between 0 and 1{what}")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise ValueError(f"must be between 0 and 1{what}")
    return float(value)


def parse_importance(value: Any) -> float:
    if isinstance(value, str):
        level = IMPORTANCE_LEVELS.get(value.strip().lower())
        if level is None:
            raise ValueError(
                "must be a number between 0 and 1 or one of low, normal, high, critical"
            )
        return level
    return _number(value, " (or one of low, normal, high, critical)")


def parse_unit_interval(value: Any) -> float:
    return _number(value, "")


def parse_content(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a string")
    text = check_text(value).strip()
    if not text:
        raise ValueError("is required and must not be empty")
    if len(text) > MAX_CONTENT_CHARS:
        raise ValueError(
            f"exceeds maximum length of {MAX_CONTENT_CHARS} characters ({len(text)} provided); "
            "split it into several memories"
        )
    return text


def parse_tags(value: Any) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(t, str) for t in items):
        raise ValueError("must be a list of strings or a single string")
    tags = list(dict.fromkeys(check_text(t).strip() for t in items if t.strip()))
    if len(tags) > MAX_TAGS:
        raise ValueError(f"must have at most {MAX_TAGS} tags ({len(tags)} provided)")
    if any(len(t) > MAX_TAG_CHARS for t in tags):
        raise ValueError(f"each tag must be at most {MAX_TAG_CHARS} characters")
    return tags


def parse_type(value: Any) -> MemoryType:
    if not isinstance(value, str) or value.strip().lower() not in TYPE_ALIASES:
        allowed = ", ".join(t.value for t in MemoryType)
        raise ValueError(f"must be one of {allowed} (or a known alias); got {value!r}")
    return TYPE_ALIASES[value.strip().lower()]


def parse_metadata(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("must be an object")
    return check_free_json(value)


def parse_labels(value: Any) -> dict[str, Any]:
    """mnemory's rules: at most 20 keys, identifier-like keys, flat values only."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("must be an object of key-value pairs")
    if len(value) > MAX_LABELS:
        raise ValueError(f"must have at most {MAX_LABELS} keys ({len(value)} provided)")
    for key, item in value.items():
        if not LABEL_KEY.fullmatch(key):
            raise ValueError(f"key {key!r} must match {LABEL_KEY.pattern}")
        _check_label_value(key, item)
    return value


def _check_label_value(key: str, item: Any) -> None:
    if isinstance(item, str):
        _check_label_string(key, item)
        return
    if isinstance(item, bool | int) or (isinstance(item, float) and math.isfinite(item)):
        return
    if isinstance(item, list) and all(isinstance(x, str) for x in item):
        if len(item) > MAX_LABEL_LIST_ITEMS:
            raise ValueError(f"value of {key!r} must have at most {MAX_LABEL_LIST_ITEMS} items")
        for text in item:
            _check_label_string(key, text)
        return
    raise ValueError(
        f"value of {key!r} must be a string, number, boolean or list of strings (flat values only)"
    )


def _check_label_string(key: str, text: str) -> None:
    if len(text) > MAX_LABEL_STRING_CHARS:
        raise ValueError(f"value of {key!r} must be at most {MAX_LABEL_STRING_CHARS} characters")
    try:
        check_text(text)
    except ValueError as exc:
        raise ValueError(f"value of {key!r} {exc}") from None


def parse_time(value: Any) -> datetime:
    """ISO-8601; a naive time is taken as UTC; always stored as UTC."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"must be an ISO-8601 timestamp; got {value!r}") from None
    else:
        raise ValueError("must be an ISO-8601 timestamp string")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # e.g. 9999-12-31T23:59:59-14:00 is in the year 10000 in UTC
        raise ValueError(
            f"must be a time in years 1–9999 once converted to UTC; got {value!r}"
        ) from None


def parse_embedding(value: Any) -> list[float] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise ValueError("must be a non-empty list of numbers (or a comma-separated string)")
    try:
        vector = [float(x) for x in items if not isinstance(x, bool)]
    except (TypeError, ValueError):
        raise ValueError("must contain only numeric values") from None
    if len(vector) != len(items) or not all(math.isfinite(x) for x in vector):
        raise ValueError("must contain only finite numeric values")
    return vector


def parse_agent_id(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not AGENT_ID.fullmatch(value):
        raise ValueError(
            "must be an agent name (letters, digits, '_', '.', '-', '@'), with ':' separating "
            "sub-agents, e.g. 'openwebui:bob'"
        )
    return value


def parse_strings(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError("must be a list of strings")
    items = [check_text(x).strip() for x in value if x.strip()]
    if len(items) > MAX_CATEGORIES:
        raise ValueError(f"must have at most {MAX_CATEGORIES} items ({len(items)} provided)")
    if any(len(x) > MAX_CATEGORY_CHARS for x in items):
        raise ValueError(f"each item must be at most {MAX_CATEGORY_CHARS} characters")
    return items


def parse_text(value: Any) -> Any:
    """A plain string field: no NUL, no lone surrogate (its length is the field's own rule)."""
    return check_text(value) if isinstance(value, str) else value


def parse_ttl_days(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 36500:
        raise ValueError("must be a positive number of days (at most 36500) or null")
    return float(value)


_IMPORTANCE_SCHEMA = {
    "anyOf": [
        {"type": "number", "minimum": 0, "maximum": 1},
        {"type": "string", "enum": list(IMPORTANCE_LEVELS)},
    ]
}
_TAGS_SCHEMA = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}
_TIME_SCHEMA = {"type": "string", "format": "date-time"}
_EMBEDDING_SCHEMA = {
    "anyOf": [{"type": "array", "items": {"type": "number"}}, {"type": "string"}, {"type": "null"}]
}
_LABEL_VALUE = {
    "anyOf": [
        {"type": "string"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "array", "items": {"type": "string"}},
    ]
}

Content = Annotated[
    str,
    BeforeValidator(parse_content),
    Field(description=f"The memory text, at most {MAX_CONTENT_CHARS} characters (stripped)."),
]
Importance = Annotated[
    float,
    BeforeValidator(parse_importance),
    WithJsonSchema(_IMPORTANCE_SCHEMA),
    Field(description="0–1, or mnemory's low (0.1) / normal (0.4) / high (0.7) / critical (1.0)."),
]
Confidence = Annotated[
    float,
    BeforeValidator(parse_unit_interval),
    Field(description="How sure the writer is of the type and content, 0–1."),
]
Tags = Annotated[
    list[str],
    BeforeValidator(parse_tags),
    WithJsonSchema(_TAGS_SCHEMA),
    Field(description="Free tags; a single string is one tag. `a:b/c` also matches prefix `a`."),
]
TypeName = Annotated[
    MemoryType,
    BeforeValidator(parse_type),
    WithJsonSchema({"type": "string", "examples": [t.value for t in MemoryType]}),
    Field(description="One of the canonical types, or an alias (fact, episodic, procedural…)."),
]
Metadata = Annotated[
    dict[str, Any],
    BeforeValidator(parse_metadata),
    Field(
        description="Free JSON object (provenance, entities, client data), at most "
        f"{MAX_METADATA_BYTES} bytes as compact JSON."
    ),
]
Labels = Annotated[
    dict[str, Any],
    BeforeValidator(parse_labels),
    WithJsonSchema({"type": "object", "additionalProperties": _LABEL_VALUE, "maxProperties": 20}),
    Field(description="Flat client key-values, never touched by an LLM; filterable. ≤20 keys."),
]
Timestamp = Annotated[datetime, BeforeValidator(parse_time), WithJsonSchema(_TIME_SCHEMA)]
Embedding = Annotated[
    list[float] | None,
    BeforeValidator(parse_embedding),
    WithJsonSchema(_EMBEDDING_SCHEMA),
    Field(description="A precomputed vector of the index's dimension; stored as given."),
]
AgentId = Annotated[
    str | None,
    BeforeValidator(parse_agent_id),
    WithJsonSchema({"type": ["string", "null"], "pattern": AGENT_ID.pattern}),
    Field(description="Agent scope; must be the caller's X-Agent-Id or one of its sub-agents."),
]
Strings = Annotated[list[str], BeforeValidator(parse_strings)]
Text = Annotated[str, BeforeValidator(parse_text)]
TtlDays = Annotated[
    float | None,
    BeforeValidator(parse_ttl_days),
    WithJsonSchema({"type": ["number", "null"], "exclusiveMinimum": 0}),
    Field(description="Days until the memory expires unless reinforced; null = permanent."),
]
