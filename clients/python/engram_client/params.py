"""The keyword arguments of the client's methods, one TypedDict per request body or query.

Shared by `Engram` and `AsyncEngram` through `**params: Unpack[...]`, so each parameter is
declared once and type-checked in both. A key left out is not sent, and the service applies
its default; `None` is sent as JSON null where the service gives null a meaning (`ttl_days`).
"""

from datetime import datetime
from typing import Any, Literal, NotRequired, TypedDict

Time = datetime | str
Importance = float | Literal["low", "normal", "high", "critical"]


class Source(TypedDict, total=False):
    session_id: str
    chat_id: str
    message_id: str
    model: str


class MemoryFields(TypedDict, total=False):
    """POST /memory, beside `content`."""

    type: str
    confidence: float
    importance: Importance
    tags: list[str] | str
    categories: list[str]
    metadata: dict[str, Any]
    labels: dict[str, Any]
    role: Literal["user", "assistant"]
    pinned: bool
    protected: bool
    ttl_days: float | None
    agent_id: str
    timestamp: Time
    t_valid: Time
    t_invalid: Time
    embedding: list[float]
    source: Source


class NewMemory(MemoryFields):
    """One memory of `store_batch`."""

    content: str


class MemoryChanges(TypedDict, total=False):
    """PATCH /memory/{id}: only the fields given change."""

    content: str
    type: str
    confidence: float
    importance: Importance
    tags: list[str] | str
    categories: list[str]
    metadata: dict[str, Any]
    labels: dict[str, Any]
    role: Literal["user", "assistant"]
    pinned: bool
    protected: bool
    archived: bool
    ttl_days: float | None
    timestamp: Time
    t_valid: Time
    t_invalid: Time
    embedding: list[float]
    expected_version: int


class ListFilters(TypedDict, total=False):
    """GET /memory, beside `cursor` and `limit`."""

    sort: Literal["created_at", "timestamp", "updated_at"]
    order: Literal["asc", "desc"]
    state: Literal["current", "archived", "all"]
    type: list[str]
    layer: list[str]
    tags: list[str]
    labels: dict[str, str]
    since: Time
    until: Time


class RecallParams(TypedDict, total=False):
    """Every parameter of GET/POST /recall but `query` (docs/api.md#recall)."""

    queries: list[str]
    limit: int
    sort: Literal["score", "time_desc", "time_asc", "updated_desc", "updated_asc"]
    embedding: list[float]
    time_query: str
    start: Time
    end: Time
    tags: list[str]
    tag_mode: Literal["any", "all"]
    tag_match: Literal["prefix", "exact"]
    exclude_tags: list[str]
    labels: dict[str, str]
    type: list[str]
    layer: list[str]
    include_source_turns: bool
    include_artifacts: bool
    role: list[str]
    state_mode: Literal["current", "history"]
    include_decayed: bool
    include_archived: bool
    min_score: float
    relevance_floor: float
    recency_bias: str
    channels: list[Literal["dense", "bm25", "context", "window"]]
    rerank: bool
    expand_relations: bool
    expand_entities: bool
    relation_limit: int
    expansion_limit: int
    expand_min_importance: float
    expand_min_strength: float
    expand_respect_tags: bool
    as_of: Time
    context_tags: list[str]
    context_types: list[str]
    language: str
    active_path: str
    context: str
    priority_ids: list[str]
    scope_fallback: bool
    auto_decompose: bool
    adaptive_floor: bool
    session_id: str
    memoryless: bool


class ContextParams(TypedDict, total=False):
    """POST /recall/context, beside `query`."""

    max_tokens: int
    limit: int
    include_core: bool
    session_id: str
    session_messages: int
    memoryless: bool


class Message(TypedDict):
    """One message of a conversation for /remember (OpenAI's shape)."""

    role: Literal["user", "assistant", "system", "tool"]
    content: str
    timestamp: NotRequired[Time]
    message_id: NotRequired[str]
    name: NotRequired[str]


class RememberSource(TypedDict, total=False):
    chat_id: str
    model: str


class RememberParams(TypedDict, total=False):
    """POST /remember, beside `messages` and `session_id`."""

    agent_id: str
    role: Literal["user", "assistant"]
    labels: dict[str, Any]
    source: RememberSource
    memoryless: bool
