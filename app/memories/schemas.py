"""Request and response models of the memory endpoints (AutoMem's shapes, extended)."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.memories.fields import (
    AgentId,
    Confidence,
    Content,
    Embedding,
    Importance,
    Labels,
    Metadata,
    Strings,
    Tags,
    Text,
    Timestamp,
    TtlDays,
    TypeName,
)
from app.models import ArtifactMeta, Layer, Memory, MemoryType, Role, Status

MAX_BATCH = 500


class SourceIn(BaseModel):
    """Where a memory came from; `created_by` is always the authenticated caller."""

    model_config = ConfigDict(extra="forbid")
    session_id: Text | None = Field(None, max_length=200, description="Client session id.")
    chat_id: Text | None = Field(None, max_length=200, description="Chat / conversation id.")
    message_id: Text | None = Field(None, max_length=200, description="Message id in the chat.")
    model: Text | None = Field(None, max_length=200, description="Model that produced the text.")


class MemoryCreate(BaseModel):
    """A new memory. Unknown fields are ignored (AutoMem clients send e.g. `id`)."""

    content: Content
    type: TypeName | None = Field(None, description="Memory type; absent → Context.")
    confidence: Confidence | None = Field(None, description="Default 0.9 if `type` is given.")
    importance: Importance = 0.5
    tags: Tags = Field(default_factory=list)
    categories: Strings = Field(default_factory=list, description="mnemory-style categories.")
    metadata: Metadata = Field(default_factory=dict)
    labels: Labels = Field(default_factory=dict)
    role: Role = Field(Role.USER, description="Whom the memory is about.")
    pinned: bool = Field(False, description="Always loaded into core context; exempt from TTL.")
    protected: bool = Field(False, description="Never archived or deleted by forgetting.")
    ttl_days: TtlDays = Field(
        None,
        description="Days until it expires unless reinforced; null = permanent; "
        "absent = the type's default (Event 90, Habit 60, Context 7; others permanent).",
    )
    agent_id: AgentId = None
    timestamp: Timestamp | None = Field(None, description="When it was said/happened; default now.")
    t_valid: Timestamp | None = Field(
        None, description="Valid from (world time); default timestamp."
    )
    t_invalid: Timestamp | None = Field(None, description="Valid until (world time); null = open.")
    updated_at: Timestamp | None = Field(None, description="Imports only; default now.")
    last_accessed: Timestamp | None = Field(None, description="Imports only; default updated_at.")
    embedding: Embedding = None
    source: SourceIn | None = Field(None, description="Provenance of the text.")
    allow_duplicate: bool = Field(
        False,
        description="POST /memory: store a new memory even if a current one of yours (same user "
        "and agent, no session) has exactly this content; by default that one is returned, "
        "reinforced, with `deduplicated: true`. /memory/batch never deduplicates.",
    )


class MemoryUpdate(BaseModel):
    """A partial update: only the fields present change. `null` clears an optional field."""

    model_config = ConfigDict(extra="forbid")
    content: Content | None = Field(None, description="New text; the memory is re-embedded.")
    type: TypeName | None = Field(None, description="New type (canonical or alias).")
    confidence: Confidence | None = Field(None, description="New confidence, 0–1.")
    importance: Importance | None = Field(None, description="New importance, 0–1 or a level.")
    tags: Tags | None = Field(None, description="Replaces all tags.")
    categories: Strings | None = Field(None, description="Replaces all categories.")
    metadata: Metadata | None = Field(None, description="Replaces the whole object.")
    labels: Labels | None = Field(None, description="Replaces all labels.")
    role: Role | None = Field(None, description="Whom the memory is about.")
    pinned: bool | None = Field(None, description="Pin to core context (exempt from TTL).")
    protected: bool | None = Field(None, description="Exempt from forgetting.")
    archived: bool | None = Field(
        None, description="false restores an archived memory (counts as a use); true archives it."
    )
    ttl_days: TtlDays = None
    timestamp: Timestamp | None = Field(None, description="When it was said or happened.")
    t_valid: Timestamp | None = Field(None, description="Valid from (world time).")
    t_invalid: Timestamp | None = Field(None, description="Valid until; null reopens it.")
    embedding: Embedding = None
    expected_version: int | None = Field(
        None, ge=1, description="Optimistic lock: 409 if the memory is no longer at this version."
    )


class BatchCreate(BaseModel):
    memories: list[MemoryCreate] = Field(
        ..., min_length=1, max_length=MAX_BATCH, description="1–500 memories, all or nothing."
    )


class MemoryOut(BaseModel):
    """A memory as clients see it."""

    id: str = Field(description="Server-generated UUID.")
    user_id: str = Field(description="Owner.")
    agent_id: str | None = Field(
        None, description="Agent scope; null = shared by the user's agents."
    )
    content: str = Field(description="The memory text.")
    summary: str | None = Field(None, description="Short summary, once enriched.")
    type: MemoryType = Field(description="Memory type.")
    confidence: float = Field(description="Confidence in type and content, 0–1.")
    importance: float = Field(description="Importance, 0–1.")
    tags: list[str] = Field(description="Tags.")
    tag_prefixes: list[str] = Field(description="Lower-cased hierarchical prefixes of the tags.")
    categories: list[str] = Field(description="Categories.")
    labels: dict[str, Any] = Field(description="Client labels.")
    metadata: dict[str, Any] = Field(description="Free metadata.")
    role: Role = Field(description="Whom the memory is about.")
    layer: Layer = Field(
        description="transcript (a turn /remember kept verbatim), raw (a fact extracted from "
        "turns) or consolidated."
    )
    pinned: bool = Field(description="Loaded into core context.")
    timestamp: str = Field(description="When it was said or happened (UTC).")
    t_valid: str | None = Field(None, description="Valid from (UTC).")
    t_invalid: str | None = Field(None, description="Valid until (UTC).")
    created_at: str = Field(description="Record time (UTC).")
    updated_at: str = Field(description="Last change (UTC).")
    last_accessed: str | None = Field(None, description="Last recall (UTC).")
    access_count: int = Field(description="Times recalled.")
    version: int = Field(description="Starts at 1; every change adds one.")
    ttl_days: float | None = Field(None, description="TTL in days; null = permanent.")
    expires_at: str | None = Field(None, description="When it expires unless reinforced.")
    relevance_score: float | None = Field(None, description="Decayed relevance, once computed.")
    archived: bool = Field(description="Archived (by forgetting, or by PATCH); hidden.")
    archived_at: str | None = Field(None, description="When it was archived (UTC).")
    protected: bool = Field(False, description="Exempt from forgetting.")
    consolidated_into: str | None = Field(
        None, description="The cluster summary that summarises this memory (SUMMARIZES)."
    )
    cluster_summary: bool = Field(False, description="A summary written by clustering.")
    embedding_status: Status = Field(description="pending / done / failed — never faked.")
    enrichment_status: Status = Field(description="pending / done / failed.")
    source: dict[str, Any] = Field(description="Provenance: created_by, session_id, chat_id…")
    session_id: str | None = Field(None, description="The conversation session (from source).")
    speaker: str | None = Field(
        None, description="Transcript turns: the speaker's name, when the client gave one."
    )
    superseded_by: str | None = Field(
        None, description="Raw layer: the consolidated memory that replaced this one."
    )
    derived_from: list[str] = Field(
        default_factory=list, description="Consolidated layer: the raw memories it came from."
    )
    artifacts: list[ArtifactMeta] = Field(
        default_factory=list, description="Files attached (POST /memory/{id}/artifacts)."
    )


class StoreResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The new memory's id.")
    stored_at: str = Field(description="Record time (UTC).")
    type: MemoryType = Field(description="Stored type.")
    confidence: float = Field(description="Stored confidence.")
    importance: float = Field(description="Stored importance.")
    version: int = Field(description="1 for a new memory; a deduplicated one's current version.")
    qdrant: Literal["stored", "failed"] = Field(
        description="Whether the vector mirror was written."
    )
    embedding_status: Literal["provided", "queued", "pending"] = Field(
        description="provided: your vector was stored; queued: an embed job will make one; "
        "pending: no embedder is configured yet."
    )
    enrichment: Literal["queued", "disabled"] = Field(description="Whether enrichment will run.")
    previously_deleted: bool = Field(description="The same content was deleted before by you.")
    metadata: dict[str, Any] = Field(description="Stored metadata.")
    timestamp: str = Field(description="Stored timestamp (UTC).")
    updated_at: str = Field(description="Stored updated_at (UTC).")
    last_accessed: str | None = Field(description="Stored last_accessed (UTC).")
    query_time_ms: float = Field(description="Server time spent.")
    deduplicated: bool = Field(
        False,
        description="true: a current memory of yours already had exactly this content; "
        "`memory_id` is that memory's, reinforced (last_accessed, access_count, TTL), and "
        "nothing was stored. `allow_duplicate: true` stores a copy instead.",
    )


class BatchResponse(BaseModel):
    status: Literal["success"] = "success"
    stored: int = Field(description="How many memories were stored.")
    memory_ids: list[str] = Field(description="Their ids, in request order.")
    qdrant: str = Field(description="`stored (N)`, or `stored (N), failed (M)`.")
    enrichment: Literal["queued", "disabled"] = Field(description="Whether enrichment will run.")
    query_time_ms: float = Field(description="Server time spent.")


class MemoryResponse(BaseModel):
    status: Literal["success"] = "success"
    memory: MemoryOut


class UpdateResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The memory's id.")
    version: int = Field(description="The new version.")
    memory: MemoryOut


class DeleteResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The deleted memory's id.")
    deleted_at: str = Field(description="When (UTC). A tombstone and the final revision remain.")
    erased_ids: list[str] | None = Field(
        None, description="With erase=true: the memories erased (it and summaries derived from it)."
    )
    disk: dict[str, Any] | None = Field(
        None,
        description="With erase=true: the search of the data directory's files for the erased "
        "text afterwards ({clean, checked_files, found_in, clean_at, …}; docs/operations.md, "
        "Erasure); null when no store keeps files there.",
    )


class ByTagResponse(BaseModel):
    status: Literal["success"] = "success"
    tags: list[str] = Field(description="The tags asked for.")
    count: int = Field(description="Memories in this page.")
    limit: int = Field(description="Page size.")
    offset: int = Field(description="Page start.")
    has_more: bool = Field(description="Whether another page exists.")
    memories: list[MemoryOut] = Field(description="This page of memories.")


class DeleteByTagResponse(BaseModel):
    status: Literal["success"] = "success"
    tags: list[str] = Field(description="The tags asked for.")
    deleted_count: int = Field(description="How many memories were deleted.")


class HistoryEvent(BaseModel):
    action: Literal[
        "create",
        "update",
        "delete",
        "erase",
        "import",
        "recover",
        "artifact_add",
        "artifact_delete",
    ] = Field(
        description="What happened (erase: the content was removed everywhere; artifact_*: a "
        "file attached or removed, the memory's version unchanged)."
    )
    version: int = Field(description="The version it produced (delete: the last version).")
    actor: str = Field(description="Who did it.")
    at: str = Field(description="When (UTC).")
    fields: list[str] | None = Field(None, description="Fields an update changed.")
    artifact_id: str | None = Field(None, description="artifact_*: the artifact.")


class HistoryResponse(BaseModel):
    status: Literal["success"] = "success"
    memory_id: str = Field(description="The memory's id.")
    deleted: bool = Field(description="Whether the memory has been deleted.")
    current: MemoryOut | None = Field(description="The live state; null once deleted.")
    revisions: list[dict[str, Any]] = Field(
        description="Every replaced state, oldest first, with replaced_at and replaced_by."
    )
    tombstone: dict[str, Any] | None = Field(description="Deletion record: hash, time, actor.")
    events: list[HistoryEvent] = Field(description="The audit log of this memory.")


INTERNAL_FIELDS = {"agent_lineage", "content_hash"}


def public(memory: Memory) -> dict[str, Any]:
    """The client-facing fields of a memory (MemoryOut's shape), as JSON-ready values."""
    return memory.model_dump(mode="json", exclude=INTERNAL_FIELDS)


def out(memory: Memory) -> MemoryOut:
    return MemoryOut.model_validate(public(memory))
