"""HTTP routes of the memory resource (AutoMem's paths and shapes)."""

import time
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from app.deps import JobsDep, MemoryIdDep, PrincipalDep, QueryBool, ScopeDep, SettingsDep, StoresDep
from app.http_idempotency import IdempotencyKey, Reply, respond_once
from app.memories import edits, service
from app.memories.dependencies import TagsDep, TtlDefaultsDep
from app.memories.erase import count_erasure, erase_memory
from app.memories.schemas import (
    BatchCreate,
    BatchResponse,
    ByTagResponse,
    DeleteByTagResponse,
    DeleteResponse,
    HistoryResponse,
    MemoryCreate,
    MemoryResponse,
    MemoryUpdate,
    StoreResponse,
    UpdateResponse,
    out,
    public,
)
from app.models import to_iso, utc_now
from app.storage import Stores
from app.storage.graph.idempotency import Claim

router = APIRouter(tags=["memories"])

MAX_OFFSET = 100_000  # deeper pages: narrow the tags instead


@router.post("/memory", status_code=201, response_model=StoreResponse)
async def store_memory(
    request: Request,
    body: MemoryCreate,
    stores: StoresDep,
    ttl_defaults: TtlDefaultsDep,
    scope: ScopeDep,
    principal: PrincipalDep,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Stores a memory. The graph write is acknowledged; the embedding is made asynchronously.

    Exactly the content of a current memory of yours (same user and agent, no session): that
    memory is returned, reinforced, with `deduplicated: true` (still 201, AutoMem's status);
    `allow_duplicate: true` stores a copy."""
    started = time.perf_counter()

    async def write(claim: Claim | None, resume: list[str] | None = None) -> Reply:
        stored = await service.store(
            stores=stores,
            scope=scope,
            actor=principal.actor,
            data=body,
            ttl_defaults=ttl_defaults,
            claim=claim,
            resume=resume,
        )
        return 201, _store_response(stored, stores, started).model_dump(mode="json")

    async def again(refs: list[str]) -> Reply:
        return await write(None, refs)

    return await respond_once(request, stores.graph, scope.user_id, idempotency_key, write, again)


def _store_response(stored: service.Stored, stores: Stores, started: float) -> StoreResponse:
    memory = stored.memory
    return StoreResponse(
        memory_id=memory.id,
        stored_at=memory.created_at,
        type=memory.type,
        confidence=memory.confidence,
        importance=memory.importance,
        version=memory.version,
        qdrant="stored" if stored.mirrored else "failed",
        embedding_status=stored.embedding,
        enrichment=service.enrichment_state(stores),
        previously_deleted=stored.previously_deleted,
        metadata=memory.metadata,
        timestamp=memory.timestamp,
        updated_at=memory.updated_at,
        last_accessed=memory.last_accessed,
        query_time_ms=service.elapsed_ms(started),
        deduplicated=stored.deduplicated,
    )


@router.post("/memory/batch", status_code=201, response_model=BatchResponse)
async def store_batch(
    request: Request,
    body: BatchCreate,
    stores: StoresDep,
    ttl_defaults: TtlDefaultsDep,
    scope: ScopeDep,
    principal: PrincipalDep,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Stores up to 500 memories: all are validated first; one bad item stores nothing."""
    started = time.perf_counter()

    async def write(claim: Claim | None, resume: list[str] | None = None) -> Reply:
        result = await service.store_batch(
            stores=stores,
            scope=scope,
            actor=principal.actor,
            items=body.memories,
            ttl_defaults=ttl_defaults,
            claim=claim,
            resume=resume,
        )
        qdrant = f"stored ({result.mirrored})" + (
            f", failed ({result.failed})" if result.failed else ""
        )
        response = BatchResponse(
            stored=len(result.ids),
            memory_ids=result.ids,
            qdrant=qdrant,
            enrichment=service.enrichment_state(stores),
            query_time_ms=service.elapsed_ms(started),
        )
        return 201, response.model_dump(mode="json")

    async def again(refs: list[str]) -> Reply:
        return await write(None, refs)

    return await respond_once(request, stores.graph, scope.user_id, idempotency_key, write, again)


@router.get("/memory/by-tag", response_model=ByTagResponse)
async def list_by_tag(
    tags: TagsDep,
    stores: StoresDep,
    scope: ScopeDep,
    limit: Annotated[
        int, Query(description="Page size, clamped to 1–200 (AutoMem's rule); see `limit`.")
    ] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Page start.")] = 0,
    include_archived: Annotated[QueryBool, Query(description="Archived memories too.")] = False,
) -> ByTagResponse:
    """Memories having any of the tags, most important first."""
    limit = min(max(limit, 1), 200)
    page, has_more = await edits.list_by_tags(
        stores=stores,
        scope=scope,
        tags=tags,
        limit=limit,
        offset=offset,
        include_archived=include_archived,
    )
    return ByTagResponse(
        tags=tags,
        count=len(page),
        limit=limit,
        offset=offset,
        has_more=has_more,
        memories=[out(m) for m in page],
    )


@router.delete("/memory/by-tag", response_model=DeleteByTagResponse)
async def delete_by_tag(
    tags: TagsDep, stores: StoresDep, scope: ScopeDep, principal: PrincipalDep
) -> DeleteByTagResponse:
    """Deletes every memory (in your scope) having any of the tags; each leaves a tombstone."""
    count = await edits.delete_by_tags(stores=stores, scope=scope, actor=principal.actor, tags=tags)
    return DeleteByTagResponse(tags=tags, deleted_count=count)


@router.get("/memory/{memory_id}", response_model=MemoryResponse)
async def get_memory(memory_id: MemoryIdDep, stores: StoresDep, scope: ScopeDep) -> JSONResponse:
    """Gets one memory."""
    memory = await service.get(stores=stores, scope=scope, memory_id=memory_id)
    # The hot read path: serialise once instead of validating the response model again.
    return JSONResponse({"status": "success", "memory": public(memory)})


@router.patch("/memory/{memory_id}", response_model=UpdateResponse)
async def update_memory(
    memory_id: MemoryIdDep,
    body: MemoryUpdate,
    stores: StoresDep,
    scope: ScopeDep,
    principal: PrincipalDep,
) -> UpdateResponse:
    """Changes a memory; the previous state is kept as a revision and `version` goes up by one."""
    memory = await edits.update(
        stores=stores, scope=scope, actor=principal.actor, memory_id=memory_id, data=body
    )
    return UpdateResponse(memory_id=memory.id, version=memory.version, memory=out(memory))


@router.delete("/memory/{memory_id}", response_model=DeleteResponse)
async def delete_memory(
    memory_id: MemoryIdDep,
    stores: StoresDep,
    scope: ScopeDep,
    principal: PrincipalDep,
    jobs: JobsDep,
    settings: SettingsDep,
    erase: QueryBool = False,
) -> DeleteResponse:
    """Deletes a memory from every read; a tombstone and the final revision remain.

    `erase=true` removes its content everywhere instead (every revision, the vector, entities
    and summaries derived from it): only a tombstone of ids, times and the content hash stays.
    At most ERASE_RATE_PER_MINUTE erasures per user and minute (429 with Retry-After past it).
    """
    if erase:
        await count_erasure(jobs, settings, scope.user_id)
        report = await erase_memory(stores, memory_id, actor=principal.actor, scope=scope)
        return DeleteResponse(
            memory_id=memory_id,
            deleted_at=to_iso(utc_now()),
            erased_ids=report.erased,
            disk=report.disk,
        )
    deleted_at = await edits.delete(
        stores=stores, scope=scope, actor=principal.actor, memory_id=memory_id
    )
    return DeleteResponse(memory_id=memory_id, deleted_at=deleted_at)


@router.get("/memory/{memory_id}/history", response_model=HistoryResponse)
async def memory_history(
    memory_id: MemoryIdDep, stores: StoresDep, scope: ScopeDep
) -> HistoryResponse:
    """Every version of a memory, its tombstone if deleted, and its audit events."""
    found = await edits.history(stores=stores, scope=scope, memory_id=memory_id)
    current = found["current"]
    return HistoryResponse(
        memory_id=memory_id,
        deleted=found["tombstone"] is not None,
        current=out(current) if current else None,
        revisions=found["revisions"],
        tombstone=found["tombstone"],
        events=found["events"],
    )
