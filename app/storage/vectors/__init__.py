"""Vector index: one async interface over Qdrant Edge (in-process) or a Qdrant collection."""

from __future__ import annotations

from pathlib import Path

from app.storage.vectors.base import (
    DENSE,
    PAYLOAD_INDEXES,
    RRF_K,
    SPARSE,
    WINDOW,
    ChannelHits,
    PayloadIndexSpec,
    VectorDimensionMismatch,
    VectorFilter,
    VectorHit,
    VectorIndex,
    VectorIndexError,
    VectorPoint,
    VectorPointNotFound,
    VectorRecord,
)
from app.storage.vectors.capabilities import BlockingChannelSearch, IndexBuild, IndexBuilder
from app.storage.vectors.edge import EdgeVectorIndex
from app.storage.vectors.remote import RemoteVectorIndex
from app.storage.vectors.remote_collection import MEMORY_LOCATION

__all__ = [
    "DENSE",
    "PAYLOAD_INDEXES",
    "RRF_K",
    "SPARSE",
    "WINDOW",
    "BlockingChannelSearch",
    "ChannelHits",
    "EdgeVectorIndex",
    "IndexBuild",
    "IndexBuilder",
    "PayloadIndexSpec",
    "RemoteVectorIndex",
    "VectorDimensionMismatch",
    "VectorFilter",
    "VectorHit",
    "VectorIndex",
    "VectorIndexError",
    "VectorPoint",
    "VectorPointNotFound",
    "VectorRecord",
    "create_vector_index",
    "open_vector_index",
]


def create_vector_index(
    *,
    url: str | None,
    path: str | Path,
    collection: str,
    dimension: int,
    api_key: str | None = None,
) -> VectorIndex:
    """Build (not open) the index: no url -> Edge shard in ``path``; else Qdrant ``collection``."""
    if dimension <= 0:
        raise ValueError(f"dimension must be positive, got {dimension}")
    if url is None or not url.strip():
        return EdgeVectorIndex(path, dimension)
    if url == MEMORY_LOCATION or url.startswith(("http://", "https://")):
        return RemoteVectorIndex(
            url=url, api_key=api_key, collection=collection, dimension=dimension
        )
    raise ValueError(f"unsupported Qdrant url {url!r}: use ':memory:' or an http(s) URL")


async def open_vector_index(
    *,
    url: str | None,
    path: str | Path,
    collection: str,
    dimension: int,
    api_key: str | None = None,
) -> VectorIndex:
    """Build the index and open it (create or load, check dimension, payload indexes)."""
    index = create_vector_index(
        url=url, path=path, collection=collection, dimension=dimension, api_key=api_key
    )
    await index.open()
    return index
