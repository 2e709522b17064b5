"""What Engram answers, as pydantic models (the fields of the service's OpenAPI document).

Every model keeps fields the service adds later (`extra="allow"`), so a newer Engram never
breaks an older client; `tests/clients/test_drift.py` checks these fields against the document.
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class EngramModel(BaseModel):
    model_config = ConfigDict(extra="allow")


class ArtifactMeta(EngramModel):
    id: str
    filename: str
    content_type: str
    size: int
    sha256: str
    created_at: datetime


class Memory(EngramModel):
    id: str
    user_id: str
    agent_id: str | None = None
    content: str
    summary: str | None = None
    type: str
    confidence: float
    importance: float
    tags: list[str] = Field(default_factory=list)
    tag_prefixes: list[str] = Field(default_factory=list)
    categories: list[str] = Field(default_factory=list)
    labels: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    role: str
    layer: str
    pinned: bool = False
    timestamp: datetime
    t_valid: datetime | None = None
    t_invalid: datetime | None = None
    created_at: datetime
    updated_at: datetime
    last_accessed: datetime | None = None
    access_count: int = 0
    version: int
    ttl_days: float | None = None
    expires_at: datetime | None = None
    relevance_score: float | None = None
    archived: bool = False
    archived_at: datetime | None = None
    protected: bool = False
    consolidated_into: str | None = None
    cluster_summary: bool = False
    embedding_status: str
    enrichment_status: str
    source: dict[str, Any] = Field(default_factory=dict)
    session_id: str | None = None
    speaker: str | None = None
    superseded_by: str | None = None
    derived_from: list[str] = Field(default_factory=list)
    artifacts: list[ArtifactMeta] = Field(default_factory=list)


class Stored(EngramModel):
    """POST /memory."""

    memory_id: str
    stored_at: datetime
    type: str
    confidence: float
    importance: float
    version: int
    qdrant: str
    embedding_status: str
    enrichment: str
    previously_deleted: bool
    metadata: dict[str, Any] = Field(default_factory=dict)
    timestamp: datetime
    updated_at: datetime
    last_accessed: datetime | None = None
    query_time_ms: float


class StoredBatch(EngramModel):
    """POST /memory/batch."""

    stored: int
    memory_ids: list[str]
    qdrant: str
    enrichment: str
    query_time_ms: float


class Updated(EngramModel):
    """PATCH /memory/{id}."""

    memory_id: str
    version: int
    memory: Memory


class Deleted(EngramModel):
    """DELETE /memory/{id}."""

    memory_id: str
    deleted_at: datetime
    erased_ids: list[str] | None = None


class MemoryPage(EngramModel):
    """GET /memory: one page; pass `next_cursor` back for the next (None on the last)."""

    count: int
    limit: int
    memories: list[Memory]
    next_cursor: str | None = None


class ReplacedBy(EngramModel):
    """The later memory that holds the current value, and when it was said."""

    id: str
    timestamp: str


class Passage(EngramModel):
    """The part of a long memory that matched: `memory.content[start:end]`."""

    start: int
    end: int


class RecallItem(EngramModel):
    id: str
    score: float
    final_score: float
    original_score: float
    match_score: float
    match_type: str
    source: str
    memory: Memory
    score_components: dict[str, Any] = Field(default_factory=dict)
    relations: list[dict[str, Any]] = Field(default_factory=list)
    state_replaces: str | None = None
    state: str = "current"  # "replaced": `replaced_by` holds the current value
    replaced_by: ReplacedBy | None = None
    passage: Passage | None = None
    source_turns: list[dict[str, Any]] | None = None

    @property
    def excerpt(self) -> str:
        """The passage that matched, or the whole content when there is none."""
        if self.passage is None:
            return self.memory.content
        return self.memory.content[self.passage.start : self.passage.end]


class Recalled(EngramModel):
    """GET/POST /recall: `results` best first."""

    query: str
    results: list[RecallItem]
    count: int
    relevant: bool
    sort: str
    state_mode: str
    degraded: list[str] = Field(default_factory=list)
    unsupported: list[str] = Field(default_factory=list)
    queries: list[str] | None = None
    query_time_ms: float
    memoryless: bool | None = None
    personal_intelligence: bool | None = None
    session_id: str | None = None
    artifacts: dict[str, Any] | None = None


class Context(EngramModel):
    """POST /recall/context: a `<memories>` block for a prompt."""

    context: str
    memory_ids: list[str]
    tokens_estimated: int
    truncated: bool
    session_messages: int = 0
    memoryless: bool | None = None
    personal_intelligence: bool | None = None


class Startup(EngramModel):
    """GET /startup-recall."""

    reflection: Memory | None = None
    critical_lessons: list[dict[str, Any]]
    system_rules: list[dict[str, Any]]
    lesson_count: int
    has_critical: bool
    summary: str
    memoryless: bool | None = None
    personal_intelligence: bool | None = None


JobState = Literal["queued", "scheduled", "running", "done", "dead", "aborted"]


class RememberJob(EngramModel):
    """GET /remember/jobs/{id}."""

    job_id: str
    state: str
    attempts: int
    error: str | None = None
    result: dict[str, Any] | None = None

    @property
    def finished(self) -> bool:
        return self.state in ("done", "dead", "aborted", "failed")


class RememberAccepted(EngramModel):
    """POST /remember: 202 at once; the job extracts and stores the facts.

    `job`: the finished job, when `remember(..., wait=True)` waited for it."""

    status: str
    job_id: str | None
    session_id: str
    messages: int
    query_time_ms: float
    job: RememberJob | None = None


class ProfileFact(EngramModel):
    id: str
    content: str
    slot: str
    value: str | None = None
    timestamp: datetime
    layer: str
    source: dict[str, Any] = Field(default_factory=dict)


class Profile(EngramModel):
    """GET /profile: the user's current facts by attribute, and the newest reflection."""

    reflection: Memory | None = None
    attributes: dict[str, list[ProfileFact]]
    count: int


class ArtifactAttached(EngramModel):
    memory_id: str
    artifact: ArtifactMeta


class ArtifactList(EngramModel):
    memory_id: str
    count: int
    artifacts: list[ArtifactMeta]


class ArtifactText(EngramModel):
    """A page of a text artifact, in characters; `next_offset` is None at the end."""

    memory_id: str
    artifact: ArtifactMeta
    content: str
    offset: int
    limit: int
    total_chars: int
    next_offset: int | None = None


class ArtifactFile(EngramModel):
    """Any other artifact: its bytes."""

    memory_id: str | None = None
    artifact: ArtifactMeta
    content: bytes


class ArtifactDeleted(EngramModel):
    memory_id: str
    artifact_id: str


class ArtifactUrl(EngramModel):
    url: str
    expires_at: datetime
