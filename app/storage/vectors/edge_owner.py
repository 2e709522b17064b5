"""The owner of a Qdrant Edge shard: its one thread, opening it (create, load, finish an
interrupted rebuild), closing it, its health and upkeep, and the embedding model it records."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe

from app.storage.vectors.base import VectorIndexError
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
    complete_shared_live,
    edge_config,
    ensure_payload_indexes,
    flush_and_close,
    flush_then_record,
    recreate_dense_sync,
)

T = TypeVar("T")
# Engram's record of the model that made the dense vectors (Edge has no collection metadata).
MODEL_FILE = "engram_embedding_model.json"
HEALTH_TIMEOUT_S = 5.0


class EdgeShardOwner:
    """An Edge shard and the one dedicated thread every engine call runs on, which serialises
    them; EdgeVectorIndex (edge.py) adds the points' writes and searches."""

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
