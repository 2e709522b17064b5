"""Entities (scoped reads) and forced re-enrichment (admin)."""

from typing import Annotated, Literal

from fastapi import APIRouter, Body, Path, Query
from pydantic import BaseModel, Field, field_validator

from app.deps import AdminDep, JobsDep, ScopeDep, StoresDep
from app.enrichment.entities import ENTITY_CATEGORIES
from app.errors import BadRequest, NotFound, ServiceUnavailable
from app.jobs.kinds import enqueue_enrichment, enrichment_enabled
from app.jobs.queue import JobQueue
from app.storage.graph import enrichment as store

router = APIRouter(tags=["entities"])

REPROCESS_MAX = 10_000


class EntityOut(BaseModel):
    id: str = Field(description="`<category>:<slug>`.")
    slug: str = Field(description="URL-safe name, unique per user and category.")
    category: str = Field(description="people, organizations, places, tools, projects, concepts.")
    name: str = Field(description="The name as first seen.")
    aliases: list[str] = Field(description="Every spelling seen.")
    reference_count: int = Field(description="Memories in your scope that mention it.")
    created_at: str | None = Field(None, description="First seen.")
    last_referenced_at: str | None = Field(None, description="Last seen.")
    memory_ids: list[str] | None = Field(None, description="Memories mentioning it (≤ 50).")


class EntitiesResponse(BaseModel):
    status: Literal["success"] = "success"
    entities: list[EntityOut] = Field(description="Most referenced first.")
    count: int = Field(description="How many are listed.")


class EntityResponse(BaseModel):
    status: Literal["success"] = "success"
    entity: EntityOut = Field(description="The entity, with the memories mentioning it.")


class ReprocessRequest(BaseModel):
    ids: list[str] | str | None = Field(
        None, description="Memory ids (a list or a comma-separated string)."
    )
    user_id: str | None = Field(None, description="Without ids: this user's memories.")
    enrichment_status: Literal["pending", "done", "failed"] | None = Field(
        None, description="Without ids: only memories in this enrichment state."
    )
    limit: int = Field(1000, ge=1, le=REPROCESS_MAX, description="At most this many memories.")

    @field_validator("ids", mode="after")
    @classmethod
    def _split(cls, value: list[str] | str | None) -> list[str] | None:
        if isinstance(value, str):
            value = value.split(",")
        return [i.strip() for i in value if i.strip()] if value is not None else None


class ReprocessResponse(BaseModel):
    status: Literal["queued"] = "queued"
    count: int = Field(description="Memories queued for forced enrichment.")
    ids: list[str] = Field(description="Their ids, sorted.")
    missing: list[str] = Field(description="Requested ids that are not live memories.")
    job_ids: list[str] = Field(description="Poll GET /admin/jobs/{job_id}.")


@router.get("/entities", response_model=EntitiesResponse)
async def list_entities(
    stores: StoresDep,
    scope: ScopeDep,
    category: Annotated[
        str | None, Query(description=f"One of {', '.join(ENTITY_CATEGORIES)}.")
    ] = None,
    limit: Annotated[int, Query(description="At most this many, clamped to 1–500.")] = 100,
) -> EntitiesResponse:
    """Entities mentioned by your memories, most referenced first."""
    if category is not None and category not in ENTITY_CATEGORIES:
        raise BadRequest(f"Invalid 'category': must be one of {', '.join(ENTITY_CATEGORIES)}")
    found = await store.list_entities(
        stores.graph, scope, category=category, limit=min(max(limit, 1), 500)
    )
    return EntitiesResponse(entities=[EntityOut(**e) for e in found], count=len(found))


@router.get("/entity/{slug}", response_model=EntityResponse)
async def get_entity(
    stores: StoresDep, scope: ScopeDep, slug: Annotated[str, Path(max_length=200)]
) -> EntityResponse:
    """One entity by slug (or by a name it was seen under), with the memories mentioning it."""
    found = await store.get_entity(stores.graph, scope, slug)
    if found is None:
        raise NotFound(f"Entity {slug} not found")
    return EntityResponse(entity=EntityOut(**found))


@router.post("/enrichment/reprocess", status_code=202, response_model=ReprocessResponse)
async def reprocess(
    stores: StoresDep,
    jobs: JobsDep,
    _: AdminDep,
    body: Annotated[ReprocessRequest, Body()] = ReprocessRequest(),
    ids: Annotated[str | None, Query(description="Comma-separated memory ids.")] = None,
) -> ReprocessResponse:
    """Queues forced enrichment jobs (entities, summary, links, re-classification)."""
    if not enrichment_enabled(jobs):
        raise ServiceUnavailable("Enrichment is disabled (ENRICHMENT_ENABLED=false)")
    wanted = body.ids or ReprocessRequest(ids=ids).ids
    if not wanted and body.user_id is None and body.enrichment_status is None:
        raise BadRequest("No memory ids provided for reprocessing (give ids, or filters)")
    owners = await store.owners(
        stores.graph,
        ids=wanted,
        user_id=body.user_id,
        status=body.enrichment_status,
        limit=body.limit,
    )
    job_ids = await _queue_forced(jobs, owners)
    found = sorted(memory_id for _, memory_id in owners)
    missing = sorted(set(wanted or []) - set(found))
    return ReprocessResponse(count=len(found), ids=found, missing=missing, job_ids=job_ids)


async def _queue_forced(jobs: JobQueue, owners: list[tuple[str, str]]) -> list[str]:
    job_ids = []
    for user_id in sorted({owner for owner, _ in owners}):
        ids = sorted(memory_id for owner, memory_id in owners if owner == user_id)
        job_ids += await enqueue_enrichment(jobs, user_id, ids, force=True)
    return job_ids
