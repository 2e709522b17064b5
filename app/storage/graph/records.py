"""Memories as graph properties and back, and the shapes the graph store's reads return.

Maps and lists are stored as JSON strings (JSON_PROPERTIES). Every write of one goes through
`json_property`, which refuses a value that is not the JSON object (or, for `artifacts`, list)
the reads expect, so no write stores '' or half a document. A stored value that still fails to
parse (written by an older version, or by hand) is read as empty with a warning naming the
memory, never as an error: one bad record must not break every read that meets it. fsck
reports and repairs it (`unreadable_properties`).
"""

import json
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.models import JSON_PROPERTIES, SPARSE_PROPERTIES, Memory, MemoryProps
from app.scope import Scope

log = logging.getLogger(__name__)

# The JSON type each JSON property holds; every other one holds an object.
JSON_LISTS = frozenset({"artifacts"})


class InvalidJsonProperty(ValueError):
    """A value for a JSON property that is not the object (or list) its reads expect."""


def _expected_type(key: str) -> type:
    return list if key in JSON_LISTS else dict


def json_property(key: str, value: Any) -> str:
    """A JSON property's stored text: the value serialized, refused unless it is the JSON
    object (list for JSON_LISTS) that reads expect."""
    expected = _expected_type(key)
    if not isinstance(value, expected):
        raise InvalidJsonProperty(f"{key} must be a JSON {expected.__name__}, not {value!r:.60}")
    return json.dumps(value, separators=(",", ":"))


def json_property_text(key: str, value: Any) -> str:
    """json_property for a value given either as itself or as its JSON text (an export's
    revisions carry the text): the text is kept only if it parses to the expected type."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise InvalidJsonProperty(f"{key} is not valid JSON: {value!r:.60}") from exc
    return json_property(key, value)


def _parsed(key: str, raw: Any) -> Any:
    """The stored value as its expected type, or None if it is not one (or does not parse)."""
    expected = _expected_type(key)
    if isinstance(raw, expected):
        return raw
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, expected) else None


def parse_json_property(key: str, raw: Any, memory_id: Any = None) -> Any:
    """A JSON property as stored, parsed; a value that does not parse to the expected type
    reads as empty (logged with the memory's id: fsck repairs it)."""
    if raw is None:
        return _expected_type(key)()
    value = _parsed(key, raw)
    if value is None:
        log.warning("memory %s: its %s is not valid JSON; read as empty", memory_id, key)
        return _expected_type(key)()
    return value


def unreadable_properties(props: MemoryProps) -> list[str]:
    """The JSON properties of a node that reads take as empty (parse_json_property warns)."""
    return [
        key
        for key in JSON_PROPERTIES
        if props.get(key) is not None and _parsed(key, props[key]) is None
    ]


def scope_params(scope: Scope) -> dict[str, Any]:
    return {"user_id": scope.user_id, "agent_id": scope.agent_id}


def memory_to_properties(memory: Memory) -> MemoryProps:
    """A Memory as graph properties: maps become JSON strings, None values are left out (and
    empty SPARSE_PROPERTIES)."""
    props = memory.model_dump(mode="json", exclude_none=True)
    for key in JSON_PROPERTIES:
        if key in SPARSE_PROPERTIES and not props.get(key):
            props.pop(key, None)
        else:
            props[key] = json_property(key, props.get(key) or _expected_type(key)())
    return props


def properties_to_dict(props: MemoryProps) -> MemoryProps:
    """Graph properties back to plain values (JSON strings parsed; one that does not parse
    reads as empty, see parse_json_property)."""
    data = dict(props)
    for key in JSON_PROPERTIES:
        if key in data:
            data[key] = parse_json_property(key, data[key], data.get("id"))
    return data


def to_memory(node: Any) -> Memory:
    """A graph node (as the client library parses it) as a Memory."""
    return memory_from_properties(node.properties)


def memory_from_properties(props: MemoryProps) -> Memory:
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

    properties: dict[str, MemoryProps]  # id -> graph properties (JSON fields still strings)
    neighbours: list[tuple[str, str]]  # (seed id, id of the turn just before or after it)
    replaced: set[str]  # ids with a successor (INVALIDATED_BY / EVOLVED_INTO)


def graph_values(changes: dict[str, Any]) -> dict[str, Any]:
    """Maps become JSON strings (validated, see json_property); None stays None, which removes
    the property (a JSON property then reads as empty)."""
    return {
        key: json_property(key, value) if key in JSON_PROPERTIES and value is not None else value
        for key, value in changes.items()
    }


def new_id() -> str:
    return str(uuid.uuid4())
