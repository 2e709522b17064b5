"""Operator endpoints: health."""

import asyncio
from typing import Annotated, Literal, Protocol

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from app.artifacts import search as artifact_search
from app.auth import resolve_scope
from app.deps import (
    AgentHeader,
    EmbedderDep,
    OptionalPrincipalDep,
    StoresDep,
    runtime_dependency,
)
from app.embeddings import Embedder
from app.errors import StoreUnavailable
from app.models import to_iso, utc_now
from app.ops.drift import DriftCheck, DriftMonitor, Repair, SyncStatus
from app.scope import Scope
from app.storage import Stores

router = APIRouter(tags=["operations"])


class OpsServed(Protocol):
    """The parts of the Runtime the health routes read."""

    @property
    def drift(self) -> DriftMonitor | None: ...


def _served(request: Request) -> OpsServed:
    served: OpsServed = request.app.state.runtime  # app.main checks that the Runtime is one
    return served


@runtime_dependency
async def get_drift(request: Request) -> DriftMonitor | None:
    """The graph/vector count comparison (None in a process that has not started one)."""
    return _served(request).drift


DriftDep = Annotated[DriftMonitor | None, Depends(get_drift)]

StoreState = Literal["connected", "disconnected", "degraded"]


class StoreHealth(BaseModel):
    state: StoreState = Field(description="connected, degraded (recent failures) or disconnected.")
    kind: str = Field(description="How Engram reaches it (embedded / remote / edge / qdrant).")
    last_error: str | None = Field(None, description="The last failure seen by a real operation.")
    last_error_at: str | None = Field(None, description="When that failure happened (UTC).")


class EmbedderHealth(BaseModel):
    state: Literal["ok", "degraded", "down"] = Field(description="From recent embed calls.")
    provider: str = Field(description="local, openai or hash.")
    model: str = Field(description="The model that makes the vectors.")
    dimension: int = Field(description="Vector size.")
    last_error: str | None = Field(None, description="The last embedding failure.")


class RepairHealth(BaseModel):
    state: str = Field(
        description="The repairing sync's job state: queued, scheduled, running, done or dead."
    )
    done: int = Field(description="Memories compared with their points so far.")
    total: int | None = Field(None, description="Memories to compare (once it runs).")


class ArtifactSearchHealth(BaseModel):
    state: Literal["ok", "degraded"] = Field(
        description="degraded while a text artifact is left out of artifact search."
    )
    broken: int = Field(
        description="Text artifacts whose file or search index failed in this process and has "
        "not worked since (fsck names them: broken_artifact_index)."
    )
    last_error: str | None = Field(None, description="The kind of the last failure.")
    last_error_at: str | None = Field(None, description="When it happened (UTC).")


class HealthResponse(BaseModel):
    status: Literal["healthy", "degraded"] = Field(description="degraded if any store is not ok.")
    degraded: bool = Field(description="True when a dependency is down or failing.")
    falkordb: StoreState = Field(description="The graph store's state.")
    qdrant: StoreState = Field(description="The vector index's state.")
    stores: dict[str, StoreHealth] = Field(description="Details per store.")
    embedder: EmbedderHealth = Field(description="The embedder's state; not ok → degraded.")
    timestamp: str = Field(description="Now (UTC).")
    memory_count: int | None = Field(
        None,
        description="With a key: the memories your scope sees (its X-Agent-Id's, as a read "
        "does; the admin key: all). Absent without auth.",
    )
    vector_count: int | None = Field(
        None, description="With the admin key: points in the vector index."
    )
    embedded_count: int | None = Field(
        None, description="With the admin key: memories whose vector is written (each has a point)."
    )
    repair: RepairHealth | None = Field(
        None,
        description="With the admin key: the repairing sync the drift check queued, if any: "
        "it re-creates missing points from the graph and queues their embedding.",
    )
    artifact_search: ArtifactSearchHealth | None = Field(
        None,
        description="Where artifacts are kept: text artifacts left out of `include_artifacts` "
        "searches (does not make the status degraded: the rest of search works).",
    )
    sync_status: SyncStatus = Field(
        description="Graph and vector index counts compared: synced, drift_detected (points "
        "missing, or a replaced vector store not yet checked), orphaned_vectors (points left "
        "over; either queues a repairing sync and makes the status degraded) or unknown (a store "
        "cannot be counted)."
    )


@router.get("/health", response_model=HealthResponse, response_model_exclude_none=True)
async def health(
    stores: StoresDep,
    embedder: EmbedderDep,
    checker: DriftDep,
    principal: OptionalPrincipalDep,
    x_agent_id: AgentHeader = None,
) -> HealthResponse:
    """Each store's and the embedder's state; always 200. Counts only with a key."""
    graph_up, vectors_up = await asyncio.gather(stores.graph.ping(), stores.vectors.health())
    details = {
        "falkordb": _store_health(stores, "falkordb", graph_up, "falkordb"),
        "qdrant": _store_health(stores, "qdrant", vectors_up, stores.vectors.kind),
    }
    embedder_health = _embedder_health(embedder)
    drift = await checker.check() if checker else DriftCheck("unknown")
    stores_down = any(d.state != "connected" for d in details.values())
    degraded = embedder_health.state != "ok" or stores_down or drift.drifted
    response = HealthResponse(
        status="degraded" if degraded else "healthy",
        degraded=degraded,
        falkordb=details["falkordb"].state,
        qdrant=details["qdrant"].state,
        stores=details,
        embedder=embedder_health,
        timestamp=to_iso(utc_now()),
        sync_status=drift.status,
        artifact_search=_artifact_search_health(stores),
    )
    if principal is not None and graph_up:
        scope = None if principal.is_admin else resolve_scope(principal, x_agent_id)
        await _add_counts(response, stores, scope)
    if principal is not None and principal.is_admin and checker is not None:
        response.repair = _repair_health(await checker.repair())
    return response


def _repair_health(repair: Repair | None) -> RepairHealth | None:
    if repair is None:
        return None
    return RepairHealth(state=repair.state, done=repair.done, total=repair.total)


def _embedder_health(embedder: Embedder) -> EmbedderHealth:
    live = embedder.health()
    return EmbedderHealth(
        state=live["state"],
        provider=embedder.name,
        model=embedder.model,
        dimension=embedder.dimension,
        last_error=live.get("last_error"),
    )


def _store_health(stores: Stores, component: str, reachable: bool, kind: str) -> StoreHealth:
    board = stores.health.get(component)
    if component == "falkordb" and not stores.graph.replicas.state.ok:
        board = stores.graph.replicas.state  # the last write missed FALKORDB_WAIT_REPLICAS
    state: StoreState = (
        "disconnected" if not reachable else ("connected" if board.ok else "degraded")
    )
    return StoreHealth(
        state=state, kind=kind, last_error=board.last_error, last_error_at=board.last_error_at
    )


def _artifact_search_health(stores: Stores) -> ArtifactSearchHealth | None:
    if stores.artifacts is None:
        return None
    board = stores.health.get(artifact_search.BOARD)
    return ArtifactSearchHealth(
        state="degraded" if board.broken else "ok",
        broken=len(board.broken),
        last_error=board.last_error,
        last_error_at=board.last_error_at,
    )


async def _add_counts(response: HealthResponse, stores: Stores, scope: Scope | None) -> None:
    """A user's key sees the memory count of its scope; the admin key sees totals, vectors
    included."""
    if scope is not None:
        response.memory_count = await stores.graph.count_visible(scope)
        return
    response.memory_count = await stores.graph.count_memories(None)
    response.embedded_count = await stores.graph.count_embedded()
    if response.qdrant != "disconnected":
        response.vector_count = await stores.vectors.count(None)


class ReadyResponse(BaseModel):
    status: Literal["ready"] = "ready"


@router.get(
    "/ready",
    response_model=ReadyResponse,
    responses={503: {"description": "Not ready: start-up unfinished or a store unreachable."}},
)
async def ready(request: Request) -> ReadyResponse:
    """Readiness for a load balancer: 200 once start-up is done and both stores answer, else 503
    with Retry-After (`/health` stays 200 and says why)."""
    runtime = getattr(request.app.state, "runtime", None)
    if runtime is None:
        raise StoreUnavailable("Engram is still starting")
    stores: Stores = runtime.stores
    graph_up, vectors_up = await asyncio.gather(stores.graph.ping(), stores.vectors.health())
    down = [
        name for name, up in (("FalkorDB", graph_up), ("the vector index", vectors_up)) if not up
    ]
    if down:
        raise StoreUnavailable(f"{' and '.join(down)} cannot be reached")
    return ReadyResponse()
