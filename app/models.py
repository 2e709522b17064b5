"""The stored shapes and the vocabularies they use. A leaf module: pydantic and stdlib only."""

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

# A memory's properties as read from the graph (what recall ranks and the response renders).
MemoryProps = dict[str, Any]


def utc_now() -> datetime:
    return datetime.now(UTC)


def to_iso(moment: datetime) -> str:
    """UTC ISO-8601 with fixed microsecond precision, so stored strings sort chronologically."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


class MemoryType(StrEnum):
    DECISION = "Decision"
    PATTERN = "Pattern"
    PREFERENCE = "Preference"
    STYLE = "Style"
    HABIT = "Habit"
    INSIGHT = "Insight"
    CONTEXT = "Context"
    FACT = "Fact"
    EVENT = "Event"


# Other vocabularies (mnemory's memory_type, AutoMem's aliases) mapped onto ours; keys lowercase.
TYPE_ALIASES: dict[str, MemoryType] = {
    **{t.value.lower(): t for t in MemoryType},
    "preferences": MemoryType.PREFERENCE,
    "fact": MemoryType.FACT,
    "facts": MemoryType.FACT,
    "episodic": MemoryType.EVENT,
    "episode": MemoryType.EVENT,
    "event": MemoryType.EVENT,
    "procedural": MemoryType.HABIT,
    "procedure": MemoryType.HABIT,
    "routine": MemoryType.HABIT,
    "memory": MemoryType.CONTEXT,
    "note": MemoryType.CONTEXT,
    "observation": MemoryType.INSIGHT,
    "learning": MemoryType.INSIGHT,
    "lesson": MemoryType.INSIGHT,
    "choice": MemoryType.DECISION,
    "workflow": MemoryType.PATTERN,
    "convention": MemoryType.STYLE,
}

# mnemory's importance words.
IMPORTANCE_LEVELS: dict[str, float] = {"low": 0.1, "normal": 0.4, "high": 0.7, "critical": 1.0}


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"


class Layer(StrEnum):
    TRANSCRIPT = "transcript"  # a verbatim conversation turn kept by /remember
    RAW = "raw"  # a fact extracted from turns, provisional
    CONSOLIDATED = "consolidated"


class Status(StrEnum):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


class ArtifactMeta(BaseModel):
    """A file attached to a memory (its bytes are kept beside the graph, app/storage/artifacts)."""

    id: str = Field(description="The artifact's UUID.")
    filename: str = Field(description="The file's name, sanitised (no path, no control chars).")
    content_type: str = Field(description="Its media type, e.g. text/markdown or image/png.")
    size: int = Field(description="Bytes.")
    sha256: str = Field(description="Hex sha256 of the bytes (fsck checks the file against it).")
    created_at: str = Field(description="When it was attached (UTC).")


class Memory(BaseModel):
    """A memory as stored in the graph (the source of truth)."""

    id: str
    user_id: str
    agent_id: str | None = None
    agent_lineage: list[str] = Field(default_factory=list)
    content: str
    summary: str | None = None
    type: MemoryType = MemoryType.CONTEXT
    confidence: float = 0.5
    importance: float = 0.5
    tags: list[str] = Field(default_factory=list)
    tag_prefixes: list[str] = Field(default_factory=list)
    categories: list[str] = Field(default_factory=list)
    labels: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    role: Role = Role.USER
    layer: Layer = Layer.CONSOLIDATED
    pinned: bool = False
    timestamp: str
    t_valid: str | None = None
    t_invalid: str | None = None
    created_at: str
    updated_at: str
    last_accessed: str | None = None
    access_count: int = 0
    version: int = 1
    ttl_days: float | None = None
    expires_at: str | None = None
    relevance_score: float | None = None
    archived: bool = False
    archived_at: str | None = None
    protected: bool = False  # never archived or deleted by forgetting
    consolidated_into: str | None = None  # the cluster summary that SUMMARIZES this memory
    cluster_summary: bool = False  # written by clustering (app/lifecycle/cluster.py)
    embedding_status: Status = Status.PENDING
    enrichment_status: Status = Status.PENDING
    source: dict[str, Any] = Field(default_factory=dict)
    session_id: str | None = None  # source.session_id, kept as a property to look turns up by
    # Transcript turns: the speaker's name when the client gave one; it (else the role) stands in
    # front of the text wherever the turn is searched (spoken_text), never inside the content.
    speaker: str | None = None
    superseded_by: str | None = None  # raw layer: the consolidated memory that replaced it
    derived_from: list[str] = Field(default_factory=list)  # consolidated: its raw sources
    # /remember facts: what the fact is about ("residence", "likes:hiking"…); facts of one owner
    # with the same slot are checked against each other for contradiction.
    slot: str | None = None
    content_hash: str
    artifacts: list[ArtifactMeta] = Field(default_factory=list)


def spoken_text(content: str, speaker: str | None, layer: str | None, role: str | None) -> str:
    """What a memory is searched as: a transcript turn as "Speaker: text" — its speaker's name,
    else "User" or "Assistant", the words the facts extracted from it use — anything else as it
    is."""
    if layer != Layer.TRANSCRIPT:
        return content
    label = speaker or ("Assistant" if role == Role.ASSISTANT else "User")
    return f"{label}: {content}"


# Properties stored as JSON strings in the graph (FalkorDB properties cannot hold maps).
JSON_PROPERTIES = ("labels", "metadata", "source", "artifacts")
# Of those, the ones left off a node while empty (most memories have no artifacts).
SPARSE_PROPERTIES = ("artifacts",)
