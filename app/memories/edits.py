"""Changes to stored memories: update (a PATCH, the old state kept as a revision), delete, the
by-tag list and delete, and a memory's history. The graph is written first; the vector mirror
follows, and a mirror failure is recorded on the health board, never failing the request.
"""

import logging
from typing import Any

from app.artifacts import service as artifacts
from app.errors import BadRequest, Conflict, MemoryNotFound
from app.jobs.kinds import enqueue_enrichment
from app.memories import windows
from app.memories.archive import archive_changes
from app.memories.build import check_validity, expiry
from app.memories.derive import content_hash, tag_prefixes
from app.memories.schemas import MemoryUpdate
from app.memories.service import (
    DELETE_CHUNK,
    NOT_NULL,
    VECTOR_COMPONENT,
    check_embedding,
    get,
    mirror,
    queue_embedding,
)
from app.models import Memory, Status, to_iso, utc_now
from app.scope import Scope
from app.storage import Stores
from app.storage.graph.store import MemoryHistory
from app.storage.mirror import vector_payload
from app.webhooks.events import DELETED, UPDATED, emit_memories

log = logging.getLogger(__name__)


async def update(
    *, stores: Stores, scope: Scope, actor: str, memory_id: str, data: MemoryUpdate
) -> Memory:
    """Applies a partial update as a new version; the previous state becomes a Revision."""
    current = await get(stores=stores, scope=scope, memory_id=memory_id)
    if data.expected_version is not None and data.expected_version != current.version:
        raise Conflict(
            f"Memory {memory_id} is at version {current.version}, not {data.expected_version}"
        )
    check_embedding(stores, data.embedding)
    changes = _changes(current, data)
    if not changes and data.embedding is None:
        raise BadRequest("Nothing to update: give at least one field to change")
    now = to_iso(utc_now())
    updated = await stores.graph.update_memory(
        scope, memory_id, version=current.version, changes=changes, actor=actor, now=now
    )
    if updated is None:
        raise Conflict(f"Memory {memory_id} was changed concurrently; read it again and retry")
    await mirror_update(stores, scope, updated, data.embedding, "content" in changes)
    await emit_memories(stores, scope.user_id, UPDATED, [memory_id], version=updated.version)
    return updated


def _changes(current: Memory, data: MemoryUpdate) -> dict[str, Any]:
    """The graph property changes a PATCH asks for, derived fields included."""
    given = data.model_dump(include=data.model_fields_set - {"expected_version", "embedding"})
    for key in ("timestamp", "t_valid", "t_invalid"):
        if given.get(key) is not None:
            given[key] = to_iso(given[key])
    for key, default in (("tags", []), ("categories", []), ("metadata", {}), ("labels", {})):
        if key in given and given[key] is None:
            given[key] = default
    for key in ("type", "role"):
        if given.get(key) is not None:
            given[key] = given[key].value
    for key in NOT_NULL:
        if key in given and given[key] is None:
            raise BadRequest(f"Invalid '{key}': cannot be null")
    archive_changes(current.archived, given, to_iso(utc_now()))
    if "tags" in given:
        given["tag_prefixes"] = tag_prefixes(given["tags"])
    if "content" in given:
        given["content_hash"] = content_hash(given["content"])
        given["embedding_status"] = Status.PENDING.value
        given["enrichment_status"] = Status.PENDING.value  # new content: enriched again
    check_validity(given.get("t_valid", current.t_valid), given.get("t_invalid", current.t_invalid))
    if "ttl_days" in given or "pinned" in given:
        ttl = given.get("ttl_days", current.ttl_days)
        given["expires_at"] = expiry(utc_now(), ttl, given.get("pinned", current.pinned))
    return given


async def mirror_update(
    stores: Stores,
    scope: Scope,
    memory: Memory,
    embedding: list[float] | None,
    content_changed: bool,
) -> None:
    """Mirrors an update to the vector index: new content invalidates the vector (re-embed);
    other changes only touch the payload."""
    if embedding is not None or content_changed:
        mirrored = await mirror(stores, scope, [memory], {memory.id: embedding})
        if embedding is None or not mirrored:
            await queue_embedding(stores, scope, [memory.id])
        else:
            await enqueue_enrichment(stores.jobs, scope.user_id, [memory.id])
        return
    try:
        await stores.vectors.set_payload(memory.id, vector_payload(memory))
    except Exception as exc:  # the graph holds the truth; sync repairs the payload
        log.exception("vector payload update failed for %s", memory.id)
        stores.health.failed(VECTOR_COMPONENT, exc)
    else:
        stores.health.succeeded(VECTOR_COMPONENT)


async def delete(*, stores: Stores, scope: Scope, actor: str, memory_id: str) -> str:
    """Deletes a memory (tombstone + final revision + audit event) and its vector."""
    now = to_iso(utc_now())
    deleted = await windows.delete_turns(stores, scope, [memory_id], actor=actor, now=now)
    if not deleted:
        raise MemoryNotFound(memory_id)
    await unmirror(stores, deleted)
    await emit_memories(stores, scope.user_id, DELETED, deleted)
    await artifacts.remove_files(stores, scope.user_id, deleted)
    return now


async def list_by_tags(
    *,
    stores: Stores,
    scope: Scope,
    tags: list[str],
    limit: int,
    offset: int,
    include_archived: bool = False,
) -> tuple[list[Memory], bool]:
    """One page of memories having any of the tags, and whether more follow."""
    page = await stores.graph.list_by_tags(
        scope, tags, limit=limit + 1, offset=offset, include_archived=include_archived
    )
    return page[:limit], len(page) > limit


async def delete_by_tags(*, stores: Stores, scope: Scope, actor: str, tags: list[str]) -> int:
    """Deletes every memory in scope having any of the tags, in chunks; returns the count."""
    total = 0
    while ids := await stores.graph.ids_by_tags(scope, tags, limit=DELETE_CHUNK):
        deleted = await windows.delete_turns(stores, scope, ids, actor=actor, now=to_iso(utc_now()))
        await unmirror(stores, deleted)
        await emit_memories(stores, scope.user_id, DELETED, deleted)
        await artifacts.remove_files(stores, scope.user_id, deleted)
        total += len(deleted)
        if not deleted:
            break
    return total


async def unmirror(stores: Stores, ids: list[str]) -> None:
    """Removes deleted memories' points; a failure is recorded and left to sync."""
    try:
        await stores.vectors.delete(ids)
    except Exception as exc:  # an orphan point is harmless (reads hydrate from the graph)
        log.exception("vector delete failed for %d memories", len(ids))
        stores.health.failed(VECTOR_COMPONENT, exc)
    else:
        stores.health.succeeded(VECTOR_COMPONENT)


async def history(*, stores: Stores, scope: Scope, memory_id: str) -> MemoryHistory:
    """Revisions, tombstone and audit events of a memory the scope can see."""
    found = await stores.graph.history(scope, memory_id)
    if found is None:
        raise MemoryNotFound(memory_id)
    return found
