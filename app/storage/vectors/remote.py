"""Vector index on a Qdrant collection via ``qdrant_client.AsyncQdrantClient``.

Works against a Qdrant server (``url="http://..."``) and qdrant-client's pure-Python local
mode (``url=":memory:"``), which ignores payload indexes and is meant for tests.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from qdrant_client import AsyncQdrantClient, models

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
    VectorPointNotFound,
    VectorRecord,
    check_vector,
    describe_filter,
    normalise_id,
    prefetch_limit,
    scope_clause,
)
from app.storage.vectors.bm25 import document_terms, query_terms
from app.storage.vectors.remote_collection import (
    check_dimension,
    create_collection,
    ensure_payload_indexes,
    make_client,
)
from app.storage.vectors.remote_models import (
    dense_of,
    engine_filter_of,
    has_dense,
    prefetch_stage,
    sparse_vector,
)

log = logging.getLogger(__name__)
HEALTH_TIMEOUT_S = 5
UPSERT_CHUNK = 256
MODEL_METADATA_KEY = "engram_embedding_model"  # the model that made the dense vectors


class RemoteVectorIndex:
    """One Qdrant collection; pass ``client`` to share a client (it is then not closed)."""

    kind = "qdrant"

    def __init__(
        self,
        *,
        collection: str,
        dimension: int,
        url: str | None = None,
        api_key: str | None = None,
        client: AsyncQdrantClient | None = None,
    ) -> None:
        if client is None and not url:
            raise ValueError("RemoteVectorIndex needs a url (or ':memory:') or a client")
        self.collection = collection
        self.dimension = dimension
        self._url = url
        self._api_key = api_key
        self._client = client
        self._owns_client = client is None
        self._open = False
        # A collection made before window vectors existed has none (Qdrant cannot add a named
        # vector to a collection): the window channel is then off for it (docs/recall.md).
        self.has_windows = True
        self.windows_added = False  # a collection never gains the window vector

    async def open(self) -> None:
        """Create the collection if missing, check its dense size, ensure payload indexes."""
        if self._open:
            return
        if self._client is None:
            self._client = make_client(self._url or "", self._api_key)
        try:
            if not await self._client.collection_exists(self.collection):
                await create_collection(self._client, self.collection, self.dimension)
            info = await self._client.get_collection(self.collection)
            check_dimension(info, self.collection, self.dimension)
            self._check_windows(info)
            await ensure_payload_indexes(self._client, self.collection, info)
        except BaseException:
            await self.close()
            raise
        self._open = True

    async def close(self) -> None:
        """Close the client if this index created it."""
        if self._client is not None and self._owns_client:
            await self._client.close()
            self._client = None
        self._open = False

    async def health(self) -> bool:
        """True if Qdrant answers and the collection exists."""
        if not self._open or self._client is None:
            return False
        try:
            exists = self._client.collection_exists(self.collection)
            return bool(await asyncio.wait_for(exists, HEALTH_TIMEOUT_S))
        except Exception:
            return False

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace whole points."""
        structs = [self._point(p) for p in points]
        for start in range(0, len(structs), UPSERT_CHUNK):
            chunk = structs[start : start + UPSERT_CHUNK]
            await self._api.upsert(self.collection, points=chunk, wait=True)

    async def insert_missing(self, points: Sequence[VectorPoint]) -> list[str]:
        """The absent points inserted. A Qdrant server has no insert-if-absent, so a write
        between the check and the insert (one round trip) is still replaced."""
        present = await self.retrieve([p.id for p in points], with_payload=False)
        absent = [p for p in points if normalise_id(p.id) not in present]
        await self.upsert(absent)
        return [p.id for p in absent]

    async def set_payload(self, point_id: str, payload: dict[str, Any]) -> None:
        """Overwrite the whole payload of an existing point."""
        pid = normalise_id(point_id)
        found = await self._api.retrieve(
            self.collection, [pid], with_payload=False, with_vectors=False
        )
        if not found:
            raise VectorPointNotFound(f"no vector point {pid}")
        await self._api.overwrite_payload(self.collection, payload, points=[pid], wait=True)

    async def set_payload_fields(self, ids: Sequence[str], fields: dict[str, Any]) -> None:
        """Sets these payload fields of the points of `ids` that exist; the others stay."""
        wanted = [normalise_id(i) for i in ids]
        if not wanted:
            return
        found = await self._api.retrieve(
            self.collection, wanted, with_payload=False, with_vectors=False
        )
        if found:
            present: list[models.ExtendedPointId] = [r.id for r in found]
            await self._api.set_payload(self.collection, fields, points=present, wait=True)

    async def delete(self, ids: Sequence[str]) -> None:
        """Delete points; unknown ids are ignored."""
        if ids:
            selector = models.PointIdsList(points=[normalise_id(i) for i in ids])
            await self._api.delete(self.collection, points_selector=selector, wait=True)

    async def set_windows(self, vectors: dict[str, list[float]]) -> None:
        """Sets the window vector of the points that exist."""
        if not vectors or not self.has_windows:
            return
        ids = [normalise_id(i) for i in vectors]
        found = await self._api.retrieve(self.collection, ids, with_payload=False)
        present = {str(r.id) for r in found}
        update = [
            models.PointVectors(id=pid, vector={WINDOW: check_vector(v, self.dimension)})
            for pid, v in zip(ids, vectors.values(), strict=True)
            if pid in present
        ]
        if update:
            await self._api.update_vectors(self.collection, points=update, wait=True)

    async def clear_windows(self, ids: Sequence[str]) -> None:
        """Removes the window vector of these points."""
        if not ids or not self.has_windows:
            return
        wanted = [normalise_id(i) for i in ids]
        found = await self._api.retrieve(self.collection, wanted, with_payload=False)
        if present := [r.id for r in found]:
            selector = models.PointIdsList(points=present)
            await self._api.delete_vectors(
                self.collection, vectors=[WINDOW], points=selector, wait=True
            )

    async def search_window(
        self, vector: list[float], flt: VectorFilter, limit: int
    ) -> list[VectorHit]:
        """Cosine nearest neighbours by window vector; [] without window vectors."""
        if not self.has_windows:
            return []
        query = check_vector(vector, self.dimension)
        return await self._query(limit, flt, False, query=query, using=WINDOW)

    async def retrieve(
        self, ids: Sequence[str], *, with_payload: bool = True
    ) -> dict[str, VectorRecord]:
        """Fetch points by id with payload (if asked) and their dense vector."""
        if not ids:
            return {}
        wanted = [normalise_id(i) for i in ids]
        records = await self._api.retrieve(
            self.collection, wanted, with_payload=with_payload, with_vectors=[DENSE]
        )
        return {
            str(r.id): VectorRecord(
                str(r.id), r.payload or {}, has_dense(r.vector), dense_of(r.vector)
            )
            for r in records
        }

    async def search_dense(
        self, vector: list[float], flt: VectorFilter, limit: int, *, with_payload: bool = True
    ) -> list[VectorHit]:
        """Cosine nearest neighbours."""
        dense = check_vector(vector, self.dimension)
        return await self._query(limit, flt, with_payload, query=dense, using=DENSE)

    async def search_sparse(
        self, text: str, flt: VectorFilter, limit: int, *, with_payload: bool = True
    ) -> list[VectorHit]:
        """BM25 keyword search; [] when the query has no indexable token."""
        terms = query_terms(text)
        if terms is None:
            return []
        return await self._query(limit, flt, with_payload, query=sparse_vector(terms), using=SPARSE)

    async def search_hybrid(
        self,
        vector: list[float],
        text: str,
        flt: VectorFilter,
        limit: int,
        prefetch: int | None = None,
    ) -> list[VectorHit]:
        """Dense and sparse prefetches fused with RRF by Qdrant."""
        dense = check_vector(vector, self.dimension)
        engine_filter = engine_filter_of(describe_filter(flt))
        size = prefetch_limit(limit, prefetch)
        stages = [prefetch_stage(dense, DENSE, size, engine_filter)]
        terms = query_terms(text)
        if terms is not None:
            stages.append(prefetch_stage(sparse_vector(terms), SPARSE, size, engine_filter))
        fusion = models.RrfQuery(rrf=models.Rrf(k=RRF_K))
        return await self._query(limit, flt, query=fusion, prefetch=stages)

    async def search_channels(
        self, vector: list[float] | None, text: str | None, flt: VectorFilter, limit: int
    ) -> ChannelHits:
        """Both searches in one query_batch_points call (one round trip)."""
        engine_filter = engine_filter_of(describe_filter(flt))
        queries: dict[str, Any] = {}
        if vector is not None:
            queries[DENSE] = check_vector(vector, self.dimension)
        terms = query_terms(text) if text else None
        if terms is not None:
            queries[SPARSE] = sparse_vector(terms)
        found: dict[str, list[VectorHit]] = {}
        if queries and limit > 0:
            requests = [
                models.QueryRequest(
                    query=query, using=using, filter=engine_filter, limit=limit, with_payload=False
                )
                for using, query in queries.items()
            ]
            responses = await self._api.query_batch_points(self.collection, requests=requests)
            found = {
                using: [VectorHit(str(p.id), float(p.score), {}) for p in response.points]
                for using, response in zip(queries, responses, strict=True)
            }
        return ChannelHits.of(found, dense_asked=vector is not None, sparse_asked=text is not None)

    async def count(self, scope: Scope | None = None) -> int:
        """Exact count of points visible to ``scope`` (all points for None)."""
        engine_filter = None if scope is None else engine_filter_of(scope_clause(scope))
        result = await self._api.count(self.collection, count_filter=engine_filter, exact=True)
        return result.count

    async def iter_ids(self, batch: int = 512) -> AsyncIterator[list[str]]:
        """Every point id, ``batch`` at a time."""
        offset: Any = None
        while True:
            records, offset = await self._api.scroll(
                self.collection, limit=batch, offset=offset, with_payload=False, with_vectors=False
            )
            if records:
                yield [str(r.id) for r in records]
            if offset is None:
                return

    @property
    def _api(self) -> AsyncQdrantClient:
        """The client, once opened."""
        if not self._open or self._client is None:
            raise VectorIndexError(f"Qdrant vector index '{self.collection}' is not open")
        return self._client

    async def _query(
        self, limit: int, flt: VectorFilter, with_payload: bool = True, **kwargs: Any
    ) -> list[VectorHit]:
        """Run one query_points call with the filter and map the hits."""
        if limit <= 0:
            return []
        response = await self._api.query_points(
            self.collection,
            query_filter=engine_filter_of(describe_filter(flt)),
            limit=limit,
            with_payload=with_payload,
            **kwargs,
        )
        return [VectorHit(str(p.id), float(p.score), p.payload or {}) for p in response.points]

    def _point(self, point: VectorPoint) -> models.PointStruct:
        """Engine point: dense (if any) plus BM25 of the text (if it has tokens)."""
        vectors: dict[str, Any] = {}
        if point.dense is not None:
            vectors[DENSE] = check_vector(point.dense, self.dimension)
        terms = document_terms(point.text)
        if terms is not None:
            vectors[SPARSE] = sparse_vector(terms)
        return models.PointStruct(id=normalise_id(point.id), vector=vectors, payload=point.payload)

    async def embedding_model(self) -> str | None:
        """Read from the collection's metadata."""
        assert self._client is not None
        info = await self._client.get_collection(self.collection)
        return (info.config.metadata or {}).get(MODEL_METADATA_KEY)

    async def set_embedding_model(self, model: str) -> None:
        """Written to the collection's metadata."""
        assert self._client is not None
        await self._client.update_collection(self.collection, metadata={MODEL_METADATA_KEY: model})

    async def drop_dense(self) -> None:
        """Deletes the dense vector of every point, waiting until it is applied."""
        assert self._client is not None
        everything = models.FilterSelector(filter=models.Filter())
        names = [DENSE, WINDOW] if self.has_windows else [DENSE]
        await self._client.delete_vectors(
            self.collection, vectors=names, points=everything, wait=True
        )

    def _check_windows(self, info: models.CollectionInfo) -> None:
        """Notes whether the collection has window vectors (one made earlier has none)."""
        vectors = info.config.params.vectors
        self.has_windows = isinstance(vectors, dict) and WINDOW in vectors
        if not self.has_windows:
            log.warning(
                "Qdrant collection '%s' has no '%s' vector (made by an earlier release): "
                "recall runs without the window channel; recreate the collection to get it",
                self.collection,
                WINDOW,
            )
