"""Vector index on an in-process Qdrant Edge shard (``qdrant-edge-py``), one directory: the
points' writes and searches (the shard itself, its thread and upkeep: edge_owner.py)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from functools import partial
from typing import Any
from uuid import UUID

import qdrant_edge as qe

from app.scope import Scope
from app.storage.vectors.base import (
    DENSE,
    RRF_K,
    SPARSE,
    WINDOW,
    ChannelHits,
    VectorFilter,
    VectorHit,
    VectorIndexError,
    VectorPoint,
    VectorRecord,
    check_vector,
    describe_filter,
    normalise_id,
    prefetch_limit,
    scope_clause,
)
from app.storage.vectors.bm25 import query_terms
from app.storage.vectors.edge_owner import EdgeShardOwner
from app.storage.vectors.edge_shard import (
    clear_windows_sync,
    dense_of,
    edge_filter,
    edge_sparse,
    insert_missing_sync,
    overwrite_payload_sync,
    query_batch_sync,
    scroll_page,
    set_fields_sync,
    set_windows_sync,
    upsert_sync,
)

log = logging.getLogger(__name__)


class EdgeVectorIndex(EdgeShardOwner):
    """Qdrant Edge shard; every engine call runs on one dedicated thread, which serialises them
    (except recall's searches from the query thread: search_channels_blocking)."""

    kind = "edge"
    has_windows = True  # a shard made earlier gets the window vector on open

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace whole points."""
        if not points:
            return
        checked = [self._checked(p) for p in points]
        await self._call(partial(upsert_sync, checked))

    async def insert_missing(self, points: Sequence[VectorPoint]) -> list[str]:
        """The absent points inserted, checked and written in one call on the shard thread."""
        checked = [self._checked(p) for p in points]
        return await self._call(partial(insert_missing_sync, checked)) if checked else []

    async def set_payload(self, point_id: str, payload: dict[str, Any]) -> None:
        """Overwrite the whole payload of an existing point."""
        pid = normalise_id(point_id)
        await self._call(partial(overwrite_payload_sync, pid, payload))

    async def set_payload_fields(self, ids: Sequence[str], fields: dict[str, Any]) -> None:
        """Sets these payload fields of the points of `ids` that exist; the others stay."""
        if ids:
            await self._call(partial(set_fields_sync, [normalise_id(i) for i in ids], fields))

    async def delete(self, ids: Sequence[str]) -> None:
        """Delete points; unknown ids are ignored."""
        if ids:
            op = qe.UpdateOperation.delete_points([normalise_id(i) for i in ids])
            await self._call(lambda s: s.update(op))

    async def set_windows(self, vectors: dict[str, list[float]]) -> None:
        """Sets the window vector of the points that exist."""
        if vectors:
            checked = {normalise_id(i): check_vector(v, self.dimension) for i, v in vectors.items()}
            await self._call(partial(set_windows_sync, checked))

    async def clear_windows(self, ids: Sequence[str]) -> None:
        """Removes the window vector of these points."""
        if ids:
            await self._call(partial(clear_windows_sync, [normalise_id(i) for i in ids]))

    async def search_window(
        self, vector: list[float], flt: VectorFilter, limit: int
    ) -> list[VectorHit]:
        """Cosine nearest neighbours by window vector (points without one are not searched)."""
        query = qe.Query.Nearest(check_vector(vector, self.dimension), using=WINDOW)
        return await self._query(limit, flt, False, query=query)

    async def retrieve(
        self, ids: Sequence[str], *, with_payload: bool = True
    ) -> dict[str, VectorRecord]:
        """Fetch points by id with payload (if asked) and their dense vector."""
        if not ids:
            return {}
        wanted: list[int | UUID | str] = [normalise_id(i) for i in ids]
        records = await self._call(lambda s: s.retrieve(wanted, with_payload, [DENSE]))
        return {
            str(r.id): VectorRecord(
                str(r.id), r.payload or {}, DENSE in (r.vector or {}), dense_of(r.vector)
            )
            for r in records
        }

    async def search_dense(
        self, vector: list[float], flt: VectorFilter, limit: int, *, with_payload: bool = True
    ) -> list[VectorHit]:
        """Cosine nearest neighbours (exact until ``build_index`` builds HNSW)."""
        query = qe.Query.Nearest(check_vector(vector, self.dimension), using=DENSE)
        return await self._query(limit, flt, with_payload, query=query)

    async def search_sparse(
        self, text: str, flt: VectorFilter, limit: int, *, with_payload: bool = True
    ) -> list[VectorHit]:
        """BM25 keyword search; [] when the query has no indexable token."""
        terms = query_terms(text)
        if terms is None:
            return []
        query = qe.Query.Nearest(edge_sparse(terms), using=SPARSE)
        return await self._query(limit, flt, with_payload, query=query)

    async def search_hybrid(
        self,
        vector: list[float],
        text: str,
        flt: VectorFilter,
        limit: int,
        prefetch: int | None = None,
    ) -> list[VectorHit]:
        """Dense and sparse prefetches fused with RRF inside the engine."""
        dense = check_vector(vector, self.dimension)
        engine_filter = edge_filter(describe_filter(flt, shared_live=True))
        size = prefetch_limit(limit, prefetch)
        queries = [qe.Query.Nearest(dense, using=DENSE)]
        terms = query_terms(text)
        if terms is not None:
            queries.append(qe.Query.Nearest(edge_sparse(terms), using=SPARSE))
        stages = [qe.Prefetch(limit=size, query=q, filter=engine_filter) for q in queries]
        return await self._query(limit, flt, query=qe.Fusion.Rrf(k=RRF_K), prefetches=stages)

    async def search_channels(
        self, vector: list[float] | None, text: str | None, flt: VectorFilter, limit: int
    ) -> ChannelHits:
        """Both searches as one planned batch on the shard thread. An Edge search holds the GIL,
        so a search beside the query's embedding or a graph read only delays them; one batch
        after the embedding is one wait, and shares the filter's planning."""
        return await self._call(partial(self._search_channels, vector, text, flt, limit))

    def search_channels_blocking(
        self, vector: list[float] | None, text: str | None, flt: VectorFilter, limit: int
    ) -> ChannelHits:
        """search_channels, run on the calling thread; for recall's query thread, which searches
        right after it has embedded the query (one hand-off instead of two: recall/channels.py).
        The one exception to "every engine call on the shard thread": Edge's reads are safe
        beside its writes (a reader thread beside an upserting one, and beside `close`, which
        makes the read fail with an error, not crash: checked with qdrant-edge-py 0.9)."""
        shard = self._shard
        if shard is None:
            raise VectorIndexError(f"Edge vector index at {self.path} is not open")
        return self._search_channels(vector, text, flt, limit, shard)

    def _search_channels(
        self,
        vector: list[float] | None,
        text: str | None,
        flt: VectorFilter,
        limit: int,
        shard: qe.EdgeShard,
    ) -> ChannelHits:
        engine_filter = edge_filter(describe_filter(flt, shared_live=True))
        queries: dict[str, Any] = {}
        if vector is not None:
            queries[DENSE] = qe.Query.Nearest(check_vector(vector, self.dimension), using=DENSE)
        terms = query_terms(text) if text else None
        if terms is not None:
            queries[SPARSE] = qe.Query.Nearest(edge_sparse(terms), using=SPARSE)
        found: dict[str, list[VectorHit]] = {}
        if queries and limit > 0:
            requests = [
                qe.QueryRequest(limit=limit, filter=engine_filter, with_payload=False, query=q)
                for q in queries.values()
            ]
            found = dict(zip(queries, query_batch_sync(requests, shard), strict=True))
        return ChannelHits.of(found, dense_asked=vector is not None, sparse_asked=text is not None)

    async def count(self, scope: Scope | None = None) -> int:
        """Exact count of points visible to ``scope`` (all points for None)."""
        engine_filter = None if scope is None else edge_filter(scope_clause(scope))
        request = qe.CountRequest(exact=True, filter=engine_filter)
        return await self._call(lambda s: s.count(request))

    async def iter_ids(self, batch: int = 512) -> AsyncIterator[list[str]]:
        """Every point id, ``batch`` at a time, in id order."""
        offset: Any = None
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=batch, with_payload=False, with_vector=False
            )
            records, offset = await self._call(scroll_page(request))
            if records:
                yield [str(r.id) for r in records]
            if offset is None:
                return

    def _checked(self, point: VectorPoint) -> VectorPoint:
        """Validate id and dense size before anything reaches the shard thread."""
        dense = None if point.dense is None else check_vector(point.dense, self.dimension)
        return VectorPoint(normalise_id(point.id), dense, point.text, point.payload)

    async def _query(
        self, limit: int, flt: VectorFilter, with_payload: bool = True, **kwargs: Any
    ) -> list[VectorHit]:
        """Run one QueryRequest with the filter and map the hits."""
        if limit <= 0:
            return []
        request = qe.QueryRequest(
            limit=limit,
            filter=edge_filter(describe_filter(flt, shared_live=True)),
            with_payload=with_payload,
            **kwargs,
        )
        points = await self._call(lambda s: s.query(request))
        return [VectorHit(str(p.id), float(p.score), p.payload or {}) for p in points]
