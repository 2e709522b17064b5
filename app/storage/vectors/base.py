"""Vector-index contract: data types, errors, payload-index schema and the shared filter."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from app.scope import Scope
from app.storage.vectors.errors import VectorDimensionMismatch as VectorDimensionMismatch
from app.storage.vectors.errors import VectorIndexError as VectorIndexError
from app.storage.vectors.errors import VectorPointNotFound as VectorPointNotFound

DENSE = "dense"
SPARSE = "bm25"
# A second dense vector of a conversation turn: the turn embedded with the turns just before it
# (app/memories/windows.py). Written after the point's own vectors, and cleared by any upsert.
WINDOW = "window"
# Both engines score hybrid hits as sum(1 / (RRF_K + rank)), rank 0-based; pinned so the
# score scale is identical on Edge and on a server (whose default k differs).
RRF_K = 60
PREFETCH_FACTOR = 4
PREFETCH_MIN = 50


# --------------------------------------------------------------------------- data types


@dataclass(frozen=True, slots=True)
class VectorPoint:
    """One memory as the vector index stores it."""

    id: str
    dense: list[float] | None
    text: str
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class VectorFilter:
    """What a search may see: the caller's scope plus optional payload restrictions.

    ``None`` or an empty list means "no restriction", except ``ids=[]``, which matches nothing.
    """

    scope: Scope
    tags_any: list[str] | None = None
    tag_prefixes_any: list[str] | None = None
    types: list[str] | None = None
    layers: list[str] | None = None
    roles: list[str] | None = None
    label_pairs_all: list[str] | None = None
    include_archived: bool = False
    exclude_tags: list[str] | None = None
    ids: list[str] | None = None
    tags_all: list[str] | None = None  # payload "tags" contains every one
    tag_prefixes_all: list[str] | None = None  # payload "tag_prefixes" contains every one
    exclude_tag_prefixes: list[str] | None = None  # payload "tag_prefixes" contains none
    time_field: str = "timestamp"  # the ISO-8601 payload field the time range applies to
    time_gte: str | None = None
    time_lte: str | None = None


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A search result."""

    id: str
    score: float
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChannelHits:
    """What one ``search_channels`` call found; None for a channel that was not asked."""

    dense: list[VectorHit] | None = None
    sparse: list[VectorHit] | None = None

    @classmethod
    def of(
        cls, found: dict[str, list[VectorHit]], *, dense_asked: bool, sparse_asked: bool
    ) -> ChannelHits:
        """From hits by engine vector name (DENSE, SPARSE); a channel asked but not searched
        (limit 0, a text without indexable tokens) found nothing."""
        return cls(
            dense=found.get(DENSE, []) if dense_asked else None,
            sparse=found.get(SPARSE, []) if sparse_asked else None,
        )


@dataclass(frozen=True, slots=True)
class VectorRecord:
    """A stored point as returned by ``retrieve``."""

    id: str
    payload: dict[str, Any]
    has_dense: bool
    dense: list[float] | None = None


# --------------------------------------------------------------------------- payload indexes


@dataclass(frozen=True, slots=True)
class PayloadIndexSpec:
    """One payload field to index."""

    field: str
    kind: Literal["keyword", "bool", "float", "datetime"]
    is_tenant: bool = False


# The user's id on a shared (agent-less), unarchived memory's point, absent on any other: what an
# agent-less caller may see without the archive flag, in one field. A search filtered by one
# keyword match scans just those points; the same rule as three conditions (user, no agent
# lineage, not archived) checked each of the user's points against the other two, with the
# same results.
SHARED_LIVE = "shared_live_user"

PAYLOAD_INDEXES: tuple[PayloadIndexSpec, ...] = (
    PayloadIndexSpec("user_id", "keyword", is_tenant=True),
    PayloadIndexSpec(SHARED_LIVE, "keyword"),
    PayloadIndexSpec("agent_lineage", "keyword"),
    PayloadIndexSpec("tags", "keyword"),
    PayloadIndexSpec("tag_prefixes", "keyword"),
    PayloadIndexSpec("type", "keyword"),
    PayloadIndexSpec("layer", "keyword"),
    PayloadIndexSpec("role", "keyword"),
    PayloadIndexSpec("label_pairs", "keyword"),
    PayloadIndexSpec("archived", "bool"),
    PayloadIndexSpec("pinned", "bool"),
    PayloadIndexSpec("importance", "float"),
    PayloadIndexSpec("timestamp", "datetime"),
    PayloadIndexSpec("created_at", "datetime"),
    PayloadIndexSpec("updated_at", "datetime"),
    PayloadIndexSpec("t_valid", "datetime"),
    PayloadIndexSpec("t_invalid", "datetime"),
)


# --------------------------------------------------------------------------- shared filter
# Engine-neutral description of a filter; each adapter translates it 1:1 into its own
# classes, so both engines enforce exactly the same (tenancy) rule.


@dataclass(frozen=True, slots=True)
class FieldEquals:
    """Payload ``key`` equals ``value`` (for arrays: contains it)."""

    key: str
    value: str | bool


@dataclass(frozen=True, slots=True)
class FieldAny:
    """Payload ``key`` equals (or, for arrays, contains) any of ``values``."""

    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FieldEmpty:
    """Payload ``key`` is missing, null or an empty array."""

    key: str


@dataclass(frozen=True, slots=True)
class FieldTimeRange:
    """Payload ``key`` (an ISO-8601 datetime) lies within [gte, lte]; either bound optional."""

    key: str
    gte: str | None
    lte: str | None


@dataclass(frozen=True, slots=True)
class IdIn:
    """The point id is one of ``ids``."""

    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Clause:
    """All of ``must``, at least one of ``should`` (if any), none of ``must_not``."""

    must: tuple[Condition, ...] = field(default=())
    should: tuple[Condition, ...] = field(default=())
    must_not: tuple[Condition, ...] = field(default=())


Condition = FieldEquals | FieldAny | FieldEmpty | FieldTimeRange | IdIn | Clause


def _user_of(scope: Scope) -> str:
    if not scope.user_id:
        raise ValueError("scope.user_id must be a non-empty string")
    return scope.user_id


def scope_conditions(scope: Scope) -> tuple[Condition, ...]:
    """The tenancy rule: the user's points, agent-less or in the agent's lineage."""
    user = FieldEquals("user_id", _user_of(scope))
    shared = FieldEmpty("agent_lineage")
    if not scope.agent_id:
        return (user, shared)
    return (user, Clause(should=(shared, FieldEquals("agent_lineage", scope.agent_id))))


def scope_clause(scope: Scope) -> Clause:
    """A filter that only lets through what ``scope`` may see."""
    return Clause(must=scope_conditions(scope))


def describe_filter(flt: VectorFilter, *, shared_live: bool = False) -> Clause:
    """Turn a ``VectorFilter`` into the engine-neutral clause both adapters translate.

    ``shared_live``: every point of the index carries SHARED_LIVE (vector_payload writes it), so
    an agent-less caller's current memories are one condition instead of three (see SHARED_LIVE).
    """
    if shared_live and not flt.scope.agent_id and not flt.include_archived:
        return _restricted(flt, [FieldEquals(SHARED_LIVE, _user_of(flt.scope))], [])
    must_not: list[Condition] = []
    if not flt.include_archived:
        must_not.append(FieldEquals("archived", True))
    return _restricted(flt, list(scope_conditions(flt.scope)), must_not)


def _restricted(flt: VectorFilter, must: list[Condition], must_not: list[Condition]) -> Clause:
    """The clause of `must` and `must_not` with the filter's optional restrictions added."""
    for key, values in (
        ("tags", flt.tags_any),
        ("tag_prefixes", flt.tag_prefixes_any),
        ("type", flt.types),
        ("layer", flt.layers),
        ("role", flt.roles),
    ):
        if values:
            must.append(FieldAny(key, tuple(values)))
    must.extend(FieldEquals("label_pairs", pair) for pair in flt.label_pairs_all or ())
    must.extend(FieldEquals("tags", tag) for tag in flt.tags_all or ())
    must.extend(FieldEquals("tag_prefixes", prefix) for prefix in flt.tag_prefixes_all or ())
    if flt.time_gte or flt.time_lte:
        must.append(FieldTimeRange(flt.time_field, flt.time_gte, flt.time_lte))
    if flt.ids is not None:
        must.append(IdIn(tuple(normalise_id(i) for i in flt.ids)))
    if flt.exclude_tags:
        must_not.append(FieldAny("tags", tuple(flt.exclude_tags)))
    if flt.exclude_tag_prefixes:
        must_not.append(FieldAny("tag_prefixes", tuple(flt.exclude_tag_prefixes)))
    return Clause(must=tuple(must), must_not=tuple(must_not))


# --------------------------------------------------------------------------- helpers


def normalise_id(point_id: str) -> str:
    """Canonical UUID string (engines hand ids back lower-case and hyphenated)."""
    return str(uuid.UUID(str(point_id)))


def check_vector(vector: Sequence[float], dimension: int) -> list[float]:
    """Return ``vector`` as floats, or raise ValueError if its length is wrong."""
    if len(vector) != dimension:
        raise ValueError(f"dense vector has {len(vector)} dimensions, index expects {dimension}")
    return [float(x) for x in vector]


def prefetch_limit(limit: int, prefetch: int | None) -> int:
    """How many candidates each hybrid channel contributes before fusion."""
    if prefetch is None:
        prefetch = max(PREFETCH_FACTOR * limit, PREFETCH_MIN)
    return max(prefetch, limit)


# --------------------------------------------------------------------------- protocol


@runtime_checkable
class VectorIndex(Protocol):
    """Async vector index over one Qdrant shard or collection; see module docs for semantics."""

    kind: str
    dimension: int
    has_windows: bool  # it stores window vectors (a Qdrant collection made earlier does not)
    # This open added the window vector to a store made before it existed: the runtime then
    # fills the windows in (app/memories/windows.py). A Qdrant collection cannot gain one.
    windows_added: bool

    async def open(self) -> None:
        """Create or load the store and its payload indexes; check the dense size."""

    async def close(self) -> None:
        """Flush and release the store."""

    async def health(self) -> bool:
        """Cheap liveness check; never raises."""

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace whole points (vectors and payload)."""

    async def insert_missing(self, points: Sequence[VectorPoint]) -> list[str]:
        """Inserts the points whose id has no point yet and leaves the others as they are;
        answers the ids inserted. (A repair must not replace a point written meanwhile.)"""

    async def set_payload(self, point_id: str, payload: dict[str, Any]) -> None:
        """Replace a point's whole payload, keeping its vectors."""

    async def set_payload_fields(self, ids: Sequence[str], fields: dict[str, Any]) -> None:
        """Set these fields in the payloads of the points of `ids` that exist, keeping their
        other fields and their vectors; unknown ids are ignored."""

    async def delete(self, ids: Sequence[str]) -> None:
        """Delete points; unknown ids are ignored."""

    async def retrieve(
        self, ids: Sequence[str], *, with_payload: bool = True
    ) -> dict[str, VectorRecord]:
        """Fetch points by id (payload {} unless asked); unknown ids are absent."""

    async def search_dense(
        self, vector: list[float], flt: VectorFilter, limit: int, *, with_payload: bool = True
    ) -> list[VectorHit]:
        """Cosine nearest neighbours among points that have a dense vector."""

    async def search_sparse(
        self, text: str, flt: VectorFilter, limit: int, *, with_payload: bool = True
    ) -> list[VectorHit]:
        """BM25 keyword search."""

    async def search_hybrid(
        self,
        vector: list[float],
        text: str,
        flt: VectorFilter,
        limit: int,
        prefetch: int | None = None,
    ) -> list[VectorHit]:
        """Dense and sparse candidates fused by the engine with RRF."""

    async def search_channels(
        self, vector: list[float] | None, text: str | None, flt: VectorFilter, limit: int
    ) -> ChannelHits:
        """The dense search of ``vector`` and the BM25 search of ``text`` (each if given), as one
        request, without payloads: the same hits as search_dense and search_sparse."""

    async def set_windows(self, vectors: dict[str, list[float]]) -> None:
        """Sets the window vector of existing points (by id), keeping everything else; an id
        without a point is skipped. A no-op on an index without window vectors."""

    async def clear_windows(self, ids: Sequence[str]) -> None:
        """Removes the window vector of these points (unknown ids are ignored)."""

    async def search_window(
        self, vector: list[float], flt: VectorFilter, limit: int
    ) -> list[VectorHit]:
        """Cosine nearest neighbours by window vector, without payloads; [] on an index without
        window vectors."""

    async def count(self, scope: Scope | None = None) -> int:
        """Points visible to ``scope`` (archived included); ``None`` counts every point."""

    async def embedding_model(self) -> str | None:
        """The model the stored dense vectors were made by, as recorded; None if never recorded."""

    async def set_embedding_model(self, model: str) -> None:
        """Records (durably) that the dense vectors are made by ``model``."""

    async def drop_dense(self) -> None:
        """Removes every point's dense and window vectors (payloads and sparse vectors stay)."""

    def iter_ids(self, batch: int = 512) -> AsyncIterator[list[str]]:
        """Every point id, in batches."""
