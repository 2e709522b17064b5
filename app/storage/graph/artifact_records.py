"""Cypher for artifact metadata: the `artifacts` property of a memory node (a JSON list, see
app.models.ArtifactMeta), read in scope and changed by compare-and-set.

Attaching or removing a file is not a new version of the memory (its content and fields stay);
each change is an audit event of its own. Two uploads to one memory at once cannot lose each
other: a change applies only if the list is still the one it was made from.
"""

import logging
from collections.abc import Sequence
from typing import Any

from app.models import ArtifactMeta
from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import json_property, parse_json_property, scope_params
from app.storage.graph.store import GraphStore
from app.validation import MEDIA_ESSENCE

log = logging.getLogger(__name__)

# What a stored type that is not a media type is read as (a record from before types were
# checked): its value would break the Content-Type header of every download.
UNTYPED = "application/octet-stream"

ARTIFACTS_OF = f"MATCH (m:Memory {{id: $id}}) WHERE {IN_SCOPE} RETURN m.artifacts"
SWAP = f"""
MATCH (m:Memory {{id: $id}}) WHERE {IN_SCOPE} AND coalesce(m.artifacts, '[]') = $expected
SET m.artifacts = $artifacts
CREATE (:AuditEvent {{id: m.id + ':artifact:' + $artifact_id + ':' + $action, memory_id: m.id,
        user_id: m.user_id, agent_id: m.agent_id, actor: $actor, action: $action,
        version: m.version, at: $now, artifact_id: $artifact_id}})
RETURN m.id
"""
# Operator paths (fsck, sweeps, backup): live memories with artifacts, by id.
WITH_ARTIFACTS = """
MATCH (m:Memory) WHERE m.id IN $ids AND m.artifacts IS NOT NULL
RETURN m.id, m.user_id, m.artifacts
"""
# A scope's memories with artifacts, newest first (artifact search, app/artifacts/search.py).
IN_SCOPE_WITH_ARTIFACTS = f"""
MATCH (m:Memory) WHERE {IN_SCOPE} AND m.artifacts IS NOT NULL
RETURN m.id, m.artifacts ORDER BY m.timestamp DESC LIMIT $limit
"""


class Changed(Exception):
    """The memory's artifact list changed since it was read (or the memory went)."""


def dump(artifacts: Sequence[ArtifactMeta]) -> str | None:
    """The property value: None (no property) for an empty list."""
    if not artifacts:
        return None
    return json_property("artifacts", [a.model_dump() for a in artifacts])


def parse(value: str | None, memory_id: str | None = None) -> list[ArtifactMeta]:
    return [_meta(a) for a in parse_json_property("artifacts", value, memory_id)]


def _meta(stored: dict[str, Any]) -> ArtifactMeta:
    meta = ArtifactMeta.model_validate(stored)
    if valid_type(meta.content_type):
        return meta
    return meta.model_copy(update={"content_type": UNTYPED})


def valid_type(content_type: Any) -> bool:
    """Whether a stored type is a media type (fsck reports the others)."""
    return isinstance(content_type, str) and MEDIA_ESSENCE.fullmatch(content_type) is not None


async def read(graph: GraphStore, scope: Scope, memory_id: str) -> tuple[bool, str]:
    """Whether the memory is in scope, and its artifact list as stored ('[]' if none)."""
    rows = await graph.ro_query(ARTIFACTS_OF, {"id": memory_id, **scope_params(scope)})
    if not rows:
        return False, "[]"
    return True, rows[0][0] or "[]"


async def swap(
    graph: GraphStore,
    scope: Scope,
    memory_id: str,
    *,
    expected: str,
    artifacts: Sequence[ArtifactMeta],
    change: tuple[str, str],
    actor: str,
    now: str,
) -> None:
    """Replaces the list if it is still `expected`; Changed otherwise. `change`: (action,
    artifact id) for the audit event."""
    action, artifact_id = change
    params: dict[str, Any] = {
        "id": memory_id,
        "expected": expected,
        "artifacts": dump(artifacts),
        "action": action,
        "artifact_id": artifact_id,
        "actor": actor,
        "now": now,
        **scope_params(scope),
    }
    if not await graph.query(SWAP, params):
        raise Changed(memory_id)


async def of_memories(
    graph: GraphStore, memory_ids: Sequence[str]
) -> dict[str, tuple[str, list[ArtifactMeta]]]:
    """memory id -> (owner, artifacts) for the live memories among the ids that have any."""
    rows = await graph.ro_query(WITH_ARTIFACTS, {"ids": list(memory_ids)})
    return {row[0]: (row[1], parse(row[2], row[0])) for row in rows}


async def in_scope(
    graph: GraphStore, scope: Scope, limit: int
) -> list[tuple[str, list[ArtifactMeta]]]:
    """(memory id, artifacts) of the scope's newest `limit` memories that have any."""
    rows = await graph.ro_query(IN_SCOPE_WITH_ARTIFACTS, {"limit": limit, **scope_params(scope)})
    listed = []
    for memory_id, stored in rows:
        try:
            listed.append((memory_id, parse(stored, memory_id)))
        except (ValueError, TypeError) as exc:  # a list that does not parse: fsck reports it
            log.warning("artifacts of memory %s unreadable, left out: %s", memory_id, exc)
    return listed
