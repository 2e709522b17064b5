"""AutoMem's memories (its graph's node properties, or its API's shape) as Engram memories, for
`POST /admin/import` of an AutoMem export."""

import json
import uuid
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from app.memories.build import build_memory
from app.memories.schemas import MemoryCreate
from app.models import Memory
from app.scope import Scope


def from_automem(props: dict[str, Any], user_id: str, actor: str, now: datetime) -> Memory:
    """An AutoMem memory (its node's properties, or its API shape) as an Engram memory."""
    wanted = (
        "content",
        "tags",
        "importance",
        "confidence",
        "timestamp",
        "t_valid",
        "t_invalid",
        "updated_at",
        "last_accessed",
        "metadata",
        "type",
    )
    fields = {k: props[k] for k in wanted if props.get(k) not in (None, "")}
    if isinstance(fields.get("metadata"), str):  # AutoMem's graph keeps it as a JSON string
        fields["metadata"] = json.loads(fields["metadata"])
    try:
        data = MemoryCreate.model_validate({**fields, "ttl_days": None})
    except ValidationError:  # AutoMem accepted any type string; ours must be one we know
        fields.pop("type", None)
        data = MemoryCreate.model_validate({**fields, "ttl_days": None})
    memory = build_memory(data, scope=Scope(user_id), actor=actor, now=now)
    memory.id = canonical_uuid(str(props.get("id") or uuid.uuid4()))
    memory.summary = props.get("summary") or None
    memory.archived = bool(props.get("archived", False))
    memory.protected = bool(props.get("protected", False))
    if isinstance(props.get("relevance_score"), int | float):
        memory.relevance_score = float(props["relevance_score"])
    memory.source = {**memory.source, "imported_from": "automem"}
    return memory


def canonical_uuid(value: str) -> str:
    """The id in UUID's canonical form (ValueError if it is none)."""
    return str(uuid.UUID(value))
