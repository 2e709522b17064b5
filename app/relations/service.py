"""Relationships between memories: validate, write in one query per type, read in one query."""

import math
import uuid
from dataclasses import dataclass, field
from typing import Any

from app.errors import BadRequest
from app.models import to_iso, utc_now
from app.relation_types import AUTHORABLE, REGISTRY, canonical
from app.scope import Scope
from app.storage.graph import relations as edges
from app.storage.graph.store import GraphStore

MAX_BATCH = 500
MAX_PROP_CHARS = 500  # a relationship's own text properties (e.g. a reason)


@dataclass
class Association:
    a: str
    b: str
    type: str
    strength: float
    props: dict[str, Any]


@dataclass
class BatchResult:
    succeeded: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)


def _uuid(value: Any, name: str) -> str:
    if not value:
        raise BadRequest(f"'{name}' is required")
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise BadRequest(f"'{name}' must be a valid UUID") from None


def parse_association(body: dict[str, Any]) -> Association:
    """One association from a request body, with AutoMem's checks and messages."""
    if not isinstance(body, dict):
        raise BadRequest("each association must be an object")
    a, b = _uuid(body.get("memory1_id"), "memory1_id"), _uuid(body.get("memory2_id"), "memory2_id")
    if a == b:
        raise BadRequest("Cannot associate a memory with itself")
    name = canonical(str(body.get("type") or "RELATES_TO"))
    if name not in AUTHORABLE:
        raise BadRequest(f"Relation type must be one of {list(AUTHORABLE)}")
    strength = body.get("strength", 0.5)
    if (
        isinstance(strength, bool)
        or not isinstance(strength, int | float)
        or not (math.isfinite(strength) and 0 <= strength <= 1)
    ):
        raise BadRequest("'strength' must be a number between 0 and 1")
    props = {k: body[k] for k in REGISTRY[name].props if k in body and _scalar(body[k])}
    for key, value in props.items():
        if isinstance(value, str) and len(value) > MAX_PROP_CHARS:
            raise BadRequest(f"'{key}' must be at most {MAX_PROP_CHARS} characters")
    return Association(a, b, name, float(strength), props)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


async def associate(
    graph: GraphStore, scope: Scope, items: list[Association], *, actor: str
) -> set[int]:
    """Writes associations, one query per type; returns the indexes that were written."""
    now = to_iso(utc_now())
    written: set[int] = set()
    for name in sorted({item.type for item in items}):
        rows = [
            {"i": i, "a": item.a, "b": item.b, "strength": item.strength, "props": item.props}
            for i, item in enumerate(items)
            if item.type == name
        ]
        written |= await edges.create_edges(graph, scope, name, rows, actor=actor, now=now)
    return written


async def associate_batch(
    graph: GraphStore, scope: Scope, raw: list[Any], *, actor: str
) -> BatchResult:
    """AutoMem's batch form: every item is tried; invalid or missing ones are reported."""
    if not isinstance(raw, list) or not raw:
        raise BadRequest("'associations' must be a non-empty array")
    if len(raw) > MAX_BATCH:
        raise BadRequest(f"Batch size limit is {MAX_BATCH} associations per request")
    result, valid, positions = BatchResult(), [], []
    for index, body in enumerate(raw):
        try:
            valid.append(parse_association(body))
            positions.append(index)
        except BadRequest as exc:
            result.failed.append({"index": index, "reason": exc.message})
    written = await associate(graph, scope, valid, actor=actor)
    for local, item in enumerate(valid):
        index = positions[local]
        if local in written:
            result.succeeded.append(
                {
                    "index": index,
                    "memory1_id": item.a,
                    "memory2_id": item.b,
                    "relation_type": item.type,
                    "strength": item.strength,
                }
            )
        else:
            result.failed.append({"index": index, "reason": "One or both memories do not exist"})
    result.failed.sort(key=lambda f: f["index"])
    return result
