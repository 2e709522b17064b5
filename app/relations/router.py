"""POST/DELETE /associate and GET /memories/{id}/related (AutoMem's shapes)."""

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse

from app.deps import MemoryIdDep, PrincipalDep, ScopeDep, StoresDep
from app.errors import BadRequest, NotFound
from app.http_idempotency import IdempotencyKey, Reply, respond_once
from app.memories.service import get as get_memory
from app.relation_types import DEFAULT_EXPAND, FILTERABLE, canonical
from app.relations import service
from app.relations.schemas import (
    ASSOCIATE_BODY,
    AssociateBatchResponse,
    AssociateResponse,
    DissociateResponse,
    RelatedResponse,
)
from app.storage.graph import idempotency
from app.storage.graph import relations as edges
from app.storage.graph.idempotency import Claim

router = APIRouter(tags=["relationships"])
ASSOCIATE_EXAMPLE = {"memory1_id": "…", "memory2_id": "…", "type": "RELATES_TO", "strength": 0.5}


@router.post(
    "/associate",
    status_code=201,
    response_model=AssociateResponse | AssociateBatchResponse,
    responses={207: {"model": AssociateBatchResponse, "description": "Some items failed."}},
    openapi_extra=ASSOCIATE_BODY,
)
async def associate(
    request: Request,
    stores: StoresDep,
    scope: ScopeDep,
    principal: PrincipalDep,
    body: Annotated[dict[str, Any], Body(examples=[ASSOCIATE_EXAMPLE])],
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Links two memories (or, with `associations`, up to 500 pairs: 207 if only some worked).

    Linking is a merge, so the same link written twice is one link: with an Idempotency-Key the
    key is claimed first, and a retry that finds no response links again."""

    async def link() -> Reply:
        if "associations" in body:
            result = await service.associate_batch(
                stores.graph, scope, body["associations"], actor=principal.actor
            )
            return _batch_response(result)
        item = service.parse_association(body)
        if not await service.associate(stores.graph, scope, [item], actor=principal.actor):
            raise NotFound("One or both memories do not exist")
        content = {
            "status": "success",
            "message": f"Memories associated with {item.type}",
            "relation_type": item.type,
            "strength": item.strength,
            **item.props,
        }
        return 201, content

    async def write(claim: Claim | None) -> Reply:
        if claim is not None:
            await idempotency.claim(stores.graph, claim)
        return await link()

    async def again(_: list[str]) -> Reply:
        return await link()

    return await respond_once(request, stores.graph, scope.user_id, idempotency_key, write, again)


def _batch_response(result: service.BatchResult) -> Reply:
    created, failed = len(result.succeeded), len(result.failed)
    content = {
        "status": "success" if not failed else "partial_success",
        "created_count": created,
        "failed_count": failed,
        "succeeded": result.succeeded,
        "failed": result.failed,
        "summary": f"{created}/{created + failed} associations created successfully",
    }
    return (201 if not failed else 207), content


@router.delete("/associate", response_model=DissociateResponse)
async def dissociate(
    stores: StoresDep,
    scope: ScopeDep,
    body: Annotated[dict[str, Any], Body(examples=[ASSOCIATE_EXAMPLE])],
) -> dict[str, Any]:
    """Removes the edge memory1_id -[type]-> memory2_id."""
    item = service.parse_association({**body, "strength": 0.5})
    if not await edges.delete_edge(stores.graph, scope, item.type, item.a, item.b):
        raise NotFound("No such relationship")
    return {"status": "success", "relation_type": item.type, "deleted": 1}


@router.get("/memories/{memory_id}/related", response_model=RelatedResponse)
async def related(
    memory_id: MemoryIdDep,
    stores: StoresDep,
    scope: ScopeDep,
    relationship_types: Annotated[str | None, Query(description="Comma-separated types.")] = None,
    max_depth: Annotated[int, Query(description="Hops, clamped to 1–3.")] = 1,
    limit: Annotated[int, Query(description="Results, clamped to 1–200.")] = 5,
) -> dict[str, Any]:
    """Memories linked to this one, in one query, every hop inside your scope."""
    await get_memory(stores=stores, scope=scope, memory_id=memory_id)
    types = _types(relationship_types)
    depth, limit = min(max(max_depth, 1), edges.MAX_DEPTH), min(max(limit, 1), 200)
    found = await edges.related(
        stores.graph, scope, memory_id, types=types, depth=depth, limit=limit
    )
    return {
        "status": "success",
        "memory_id": memory_id,
        "count": len(found),
        "related_memories": [
            {
                "id": m.id,
                "type": m.type.value,
                "timestamp": m.timestamp,
                "summary": (m.summary or m.content)[:160],
                "importance": m.importance,
                "confidence": m.confidence,
                "tags": m.tags[:5],
            }
            for m in found
        ],
        "relationship_types": types,
        "max_depth": depth,
        "limit": limit,
    }


def _types(raw: str | None) -> list[str]:
    if not raw:
        return list(DEFAULT_EXPAND)
    names = [canonical(part) for part in raw.split(",") if part.strip()]
    types = [n for n in names if n in FILTERABLE]
    if not types:
        raise BadRequest(f"relationship_types must name some of {list(FILTERABLE)}")
    return types
