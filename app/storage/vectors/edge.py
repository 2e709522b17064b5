"""Vector index on an in-process Qdrant Edge shard (``qdrant-edge-py``), one directory."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
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
from app.storage.vectors.capabilities import IndexBuild
from app.storage.vectors.edge_index import build_index_sync
from app.storage.vectors.edge_load import (
    CONFIG_FILE,
    SEARCH_THREADS,
    load_shard,
    stored_config,
)
from app.storage.vectors.edge_rebuild import build_fresh_copy, finish_interrupted_rebuild, swap_in
from app.storage.vectors.edge_shard import (
    DENSE_DATATYPE,
    clear_windows_sync,
    complete_shared_live,
    dense_of,
    edge_config,
    edge_filter,
    edge_sparse,
    ensure_payload_indexes,
    flush_and_close,
    flush_then_record,
    insert_missing_sync,
    overwrite_payload_sync,
    query_batch_sync,
    recreate_dense_sync,
    scroll_page,
    set_fields_sync,
    set_windows_sync,
    upsert_sync,
)

T = TypeVar("T")
log = logging.getLogger(__name__)
# Engram's record of the model that made the dense vectors (Edge has no collection metadata).
MODEL_FILE = "engram_embedding_model.json"
HEALTH_TIMEOUT_S = 5.0


class EdgeVectorIndex:
    """Qdrant Edge shard; every engine call runs on one dedicated thread, which serialises them
    (except recall's searches from the query thread: search_channels_blocking)."""

    kind = "edge"
    has_windows = True  # a shard made earlier gets the window vector on open

    def __init__(self, path: str | Path, dimension: int) -> None:
        self.path = Path(path)
        self.dimension = dimension
        self._shard: qe.EdgeShard | None = None
        self._executor: ThreadPoolExecutor | None = None
        # The shard has one owner (this object), so its recorded model is read once, at open:
        # every embed job checks it.
        self._model: str | None = None
        # True when this open added the window vector to a shard made before it existed: the
        # runtime then fills the windows in (app/memories/windows.py).
        self.windows_added = False

    async def open(self) -> None:
        """Create the shard if the directory has none, else load it; ensure payload indexes."""
        if self._shard is not None:
            return
        self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"edge-{self.path.name}")
        try:
            self._shard = await self._run(self._open_sync)
        except BaseException:
            self._executor.shutdown(wait=False)
            self._executor = None
            raise

    async def close(self) -> None:
        """Flush and close the shard, then stop its thread."""
        if self._executor is None:
            return
        await self._run(self._close_sync)  # after the calls queued before it
        self._executor.shutdown(wait=True)
        self._executor = None

    async def health(self) -> bool:
        """True if the shard answers within a few seconds."""
        if self._shard is None or self._executor is None:
            return False
        try:
            await asyncio.wait_for(self._call(lambda s: s.info()), HEALTH_TIMEOUT_S)
        except Exception:
            return False
        return True

    async def build_index(self) -> IndexBuild:
        """Builds HNSW where the segments call for one; holds the GIL (edge_index.py)."""
        return await self._call(partial(build_index_sync, self.path))

    async def purge_deleted(self) -> None:
        """Rewrites the shard from its live points, so deleted points leave its files; every
        other call waits meanwhile (edge_rebuild.py: about 3 s per 10k points)."""
        await self._call(self._rebuild_sync)

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

    async def embedding_model(self) -> str | None:
        """As read from the shard directory's MODEL_FILE when the shard was opened."""
        return self._model

    async def set_embedding_model(self, model: str) -> None:
        """Written to MODEL_FILE atomically, after everything before it is flushed."""
        record = json.dumps({"model": model})
        await self._call(partial(flush_then_record, self.path / MODEL_FILE, record))
        self._model = model

    async def drop_dense(self) -> None:
        """Recreates the dense and window vectors empty, with today's storage type (float16)."""
        await self._call(partial(recreate_dense_sync, self.dimension))

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

    async def _call(self, fn: Callable[[qe.EdgeShard], T]) -> T:
        """Run ``fn(shard)`` on the shard thread."""
        return await self._run(self._on_open_shard, fn)

    def _on_open_shard(self, fn: Callable[[qe.EdgeShard], T]) -> T:
        # The shard is read on the shard thread, not when the call was queued: a call queued
        # behind a rebuild must reach the fresh shard, not the one the rebuild closed.
        shard = self._shard
        if shard is None:
            raise VectorIndexError(f"Edge vector index at {self.path} is not open")
        return fn(shard)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking function on the shard thread."""
        assert self._executor is not None
        return await asyncio.get_running_loop().run_in_executor(self._executor, partial(fn, *args))

    def _config(self) -> qe.EdgeConfig:
        return edge_config(self.dimension, DENSE_DATATYPE, DENSE_DATATYPE, SEARCH_THREADS)

    def _rebuild_sync(self, shard: qe.EdgeShard) -> qe.EdgeShard:
        build_fresh_copy(shard, self.path, self._stored_config())
        # The old shard is closed from here: a failure fails the index until the next open.
        shard.close()
        swap_in(self.path)
        self._shard = self._load_sync()  # before the next queued call runs
        return self._shard

    def _close_sync(self) -> None:
        shard, self._shard = self._shard, None
        if shard is not None:
            flush_and_close(shard)

    def _open_sync(self) -> qe.EdgeShard:
        """Load or create the shard (runs on the shard thread)."""
        purge = finish_interrupted_rebuild(self.path)
        shard = self._load_or_create_sync()
        if purge:
            try:
                shard = self._rebuild_sync(shard)
            except BaseException:
                with contextlib.suppress(Exception):  # closed already if the swap failed
                    shard.close()
                raise
        return shard

    def _load_or_create_sync(self) -> qe.EdgeShard:
        if (self.path / CONFIG_FILE).exists():
            self._model = self._recorded_model()
            shard = self._load_sync()
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            shard = qe.EdgeShard.create(str(self.path), self._config())
        try:
            ensure_payload_indexes(shard)
            complete_shared_live(shard, self.path)
        except BaseException:
            shard.close()
            raise
        return shard

    def _load_sync(self) -> qe.EdgeShard:
        shard, windows_added = load_shard(self.path, self.dimension)
        self.windows_added = self.windows_added or windows_added
        return shard

    def _stored_config(self) -> qe.EdgeConfig:
        return stored_config(self.path, self.dimension)

    def _recorded_model(self) -> str | None:
        try:
            model: str = json.loads((self.path / MODEL_FILE).read_text())["model"]
            return model
        except FileNotFoundError:
            return None
