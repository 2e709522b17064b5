"""A new memory from a validated request: defaults, classification on write, TTL, validity."""

from datetime import datetime, timedelta
from typing import Any

from app.auth import memory_agent
from app.classify import Classification, classify_by_patterns
from app.errors import BadRequest
from app.memories.derive import content_hash, tag_prefixes
from app.memories.schemas import MemoryCreate
from app.memories.ttl import TtlTable, default_ttl
from app.models import Memory, MemoryType, Status, to_iso
from app.scope import Scope, agent_lineage
from app.storage.graph.records import new_id


def build_memory(
    data: MemoryCreate,
    *,
    scope: Scope,
    actor: str,
    now: datetime,
    position: int = 0,
    ttl_defaults: TtlTable = None,
) -> Memory:
    """A new Memory from a validated request, with every default filled in (the type's TTL:
    app/memories/ttl.py)."""
    agent = memory_agent(scope, data.agent_id)
    timestamp = data.timestamp or now
    updated_at = data.updated_at or now
    check_validity(data.t_valid or timestamp, data.t_invalid)
    classification = classify_on_write(data)
    ttl_days = data.ttl_days
    if "ttl_days" not in data.model_fields_set and not classification.needs_reclassification:
        ttl_days = default_ttl(classification.type, ttl_defaults)
    return Memory(
        id=new_id(),
        user_id=scope.user_id,
        agent_id=agent,
        agent_lineage=agent_lineage(agent),
        content=data.content,
        type=classification.type,
        confidence=data.confidence if data.confidence is not None else classification.confidence,
        importance=data.importance,
        tags=data.tags,
        tag_prefixes=tag_prefixes(data.tags),
        categories=data.categories,
        labels=data.labels,
        metadata=_with_classification(data.metadata, classification),
        role=data.role,
        pinned=data.pinned,
        protected=data.protected,
        ttl_days=ttl_days,
        expires_at=expiry(now, ttl_days, data.pinned),
        timestamp=to_iso(timestamp),
        t_valid=to_iso(data.t_valid or timestamp),
        t_invalid=to_iso(data.t_invalid) if data.t_invalid else None,
        # A batch's items get consecutive microseconds, so record time orders them as sent.
        created_at=to_iso(now + timedelta(microseconds=position)),
        updated_at=to_iso(updated_at),
        last_accessed=to_iso(data.last_accessed or updated_at),
        embedding_status=Status.PENDING,
        source={
            "created_by": actor,
            **(data.source.model_dump(exclude_none=True) if data.source else {}),
        },
        session_id=data.source.session_id if data.source else None,
        content_hash=content_hash(data.content),
    )


# No type given and no pattern matched: a canonical guess, flagged so that enrichment asks the
# LLM (when one is configured) — never AutoMem's non-canonical "Memory".
UNCLASSIFIED = Classification(MemoryType.CONTEXT, 0.3, "fallback", needs_reclassification=True)


def classify_on_write(data: MemoryCreate) -> Classification:
    """The explicit type (confidence 0.9 unless given), else the seed's patterns, else a flagged
    Context guess. Only regexes run here: an LLM is never called inside a request."""
    if data.type is not None:
        return Classification(data.type, 0.9, "explicit")
    return classify_by_patterns(data.content) or UNCLASSIFIED


def _with_classification(metadata: dict[str, Any], found: Classification) -> dict[str, Any]:
    if found.method == "explicit":
        return metadata
    note = {"method": found.method, "needs_reclassification": found.needs_reclassification}
    return {**metadata, "classification": note}


def expiry(now: datetime, ttl_days: float | None, pinned: bool) -> str | None:
    if ttl_days is None or pinned:
        return None
    return to_iso(now + timedelta(days=ttl_days))


def check_validity(t_valid: datetime | str | None, t_invalid: datetime | str | None) -> None:
    start = datetime.fromisoformat(t_valid) if isinstance(t_valid, str) else t_valid
    end = datetime.fromisoformat(t_invalid) if isinstance(t_invalid, str) else t_invalid
    if start and end and end <= start:
        raise BadRequest("Invalid 't_invalid': must be later than t_valid")
