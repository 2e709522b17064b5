"""The Qdrant mirror of a memory: one function builds the point, every write path uses it.

The point carries every filterable field of the graph node (and its content, for recovery),
so a payload written by any path (create, batch, patch, re-embed, sync, restore) is complete —
AutoMem's repair paths dropped fields and made archived memories visible again (automem.md
§15, correctness 4).
"""

from datetime import datetime
from typing import Any

from app.models import Memory, spoken_text
from app.storage.vectors import VectorPoint
from app.storage.vectors.base import SHARED_LIVE

PAYLOAD_FIELDS = (
    "user_id",
    "agent_id",
    "agent_lineage",
    "type",
    "layer",
    "role",
    "pinned",
    "archived",
    "importance",
    "confidence",
    "tags",
    "tag_prefixes",
    "categories",
    "labels",
    "timestamp",
    "t_valid",
    "t_invalid",
    "created_at",
    "updated_at",
    "expires_at",
    "version",
    "relevance_score",
)
# Not filtered on, but carried so that the graph can be rebuilt from the points if it is lost
# (`engram recover-from-vectors`); absent rather than null when unset.
RECOVERY_FIELDS = (
    "content",
    "summary",
    "metadata",
    "source",
    "session_id",
    "speaker",
    "slot",
    "ttl_days",
    "protected",
    "archived_at",
    "derived_from",
    "superseded_by",
)


def label_pairs(labels: dict[str, Any]) -> list[str]:
    """Labels as "key=value" strings (one per list item), so any label filters by exact match."""
    pairs = []
    for key, value in labels.items():
        for item in value if isinstance(value, list) else [value]:
            text = str(item).lower() if isinstance(item, bool) else str(item)
            pairs.append(f"{key}={text}")
    return pairs


def vector_payload(memory: Memory) -> dict[str, Any]:
    """Every filterable field of the memory, and what else recovery needs, as the point's
    payload."""
    data = memory.model_dump(mode="json", include=set(PAYLOAD_FIELDS))
    data.update(memory.model_dump(mode="json", include=set(RECOVERY_FIELDS), exclude_none=True))
    data["label_pairs"] = label_pairs(memory.labels)
    data["content_hash"] = memory.content_hash
    if not memory.agent_lineage and not memory.archived:
        data[SHARED_LIVE] = memory.user_id  # absent, not null, elsewhere: Edge cannot set a null
    return data


def vector_point(memory: Memory, dense: list[float] | None) -> VectorPoint:
    """The point for a memory; `dense` None means the embedding is still pending."""
    return VectorPoint(
        id=memory.id,
        dense=dense,
        text=searched_text(memory),
        payload=vector_payload(memory),
    )


def searched_text(memory: Memory) -> str:
    """The memory's text as keyword and vector search see it (models.spoken_text)."""
    return spoken_text(memory.content, memory.speaker, memory.layer, memory.role)


def embedding_text(memory: Memory, *, with_date: bool) -> str:
    """What the embedder sees: the content (a turn's with its speaker), prefixed by the day it was
    said or happened.

    The date lets a question about time ("what did she do in May 2023?") meet the memory in
    vector space; on LoCoMo it raised dense recall@10 by about 3 points.
    """
    return dated(searched_text(memory), memory.timestamp, with_date=with_date)


def dated(text: str, timestamp: str | None, *, with_date: bool) -> str:
    """`text` with the day of `timestamp` in front ("[3 May 2023] …"), as the embedder sees it."""
    if not with_date or not timestamp:
        return text
    day = datetime.fromisoformat(timestamp)
    return f"[{day.day} {day:%B %Y}] {text}"
