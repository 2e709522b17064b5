"""Memories as graph properties and back, and the shapes the graph store's reads return."""

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.models import JSON_PROPERTIES, SPARSE_PROPERTIES, Memory
from app.scope import Scope


def scope_params(scope: Scope) -> dict[str, Any]:
    return {"user_id": scope.user_id, "agent_id": scope.agent_id}


def memory_to_properties(memory: Memory) -> dict[str, Any]:
    """A Memory as graph properties: maps become JSON strings, None values are left out (and
    empty SPARSE_PROPERTIES)."""
    props = memory.model_dump(mode="json", exclude_none=True)
    for key in JSON_PROPERTIES:
        if key in SPARSE_PROPERTIES and not props.get(key):
            props.pop(key, None)
        else:
            props[key] = json.dumps(props.get(key) or {}, separators=(",", ":"))
    return props


def properties_to_dict(props: dict[str, Any]) -> dict[str, Any]:
    """Graph properties back to plain values (JSON strings parsed)."""
    data = dict(props)
    for key in JSON_PROPERTIES:
        if isinstance(data.get(key), str):
            data[key] = json.loads(data[key])
    return data


def to_memory(node: Any) -> Memory:
    """A graph node (as the client library parses it) as a Memory."""
    return memory_from_properties(node.properties)


def memory_from_properties(props: dict[str, Any]) -> Memory:
    """The one place a memory's graph properties become a Memory.

    A memory stored without a timestamp (a PATCH once let `{"timestamp": null}` through) reads
    with its record time in its place, as a new memory without one gets; fsck still reports it,
    and a PATCH of `timestamp` repairs it."""
    data = properties_to_dict(props)
    if data.get("timestamp") is None:
        data["timestamp"] = data.get("created_at")
    return Memory.model_validate(data)


def memories_of(rows: list[list[Any]]) -> list[Memory]:
    """The memories of rows whose first column is `properties(m)`."""
    return [memory_from_properties(row[0]) for row in rows]


@dataclass(frozen=True)
class BrowseFilter:
    """What recall without a query shows (GraphStore.browse)."""

    tag_prefixes: Sequence[str] = ()
    excluded_prefixes: Sequence[str] = ()
    start: str | None = None
    end: str | None = None
    types: Sequence[str] = ()
    layers: Sequence[str] = ()
    roles: Sequence[str] = ()
    current_at: str | None = None  # only what is current at this time; None: every state
    include_decayed: bool = False
    include_archived: bool = False


@dataclass
class RecallCandidates:
    """What recall reads of its shortlist in one query (see GraphStore.recall_candidates)."""

    properties: dict[str, dict[str, Any]]  # id -> graph properties (JSON fields still strings)
    neighbours: list[tuple[str, str]]  # (seed id, id of the turn just before or after it)
    replaced: set[str]  # ids with a successor (INVALIDATED_BY / EVOLVED_INTO)


def graph_values(changes: dict[str, Any]) -> dict[str, Any]:
    """Maps become JSON strings; None stays None, which removes the property."""
    return {
        key: json.dumps(value, separators=(",", ":")) if key in JSON_PROPERTIES else value
        for key, value in changes.items()
    }


def new_id() -> str:
    return str(uuid.uuid4())
