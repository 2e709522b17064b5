"""Setting up a Qdrant collection for Engram: the client, the collection's vectors, its check
against the embedder and its payload indexes (RemoteVectorIndex.open)."""

from __future__ import annotations

from qdrant_client import AsyncQdrantClient, models

from app.storage.vectors.base import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    WINDOW,
    VectorDimensionMismatch,
    VectorIndexError,
)
from app.storage.vectors.remote_models import index_schema

MEMORY_LOCATION = ":memory:"
CLIENT_TIMEOUT_S = 10


def make_client(url: str, api_key: str | None) -> AsyncQdrantClient:
    """A client for a server URL, or qdrant-client's in-memory local mode."""
    if url == MEMORY_LOCATION:
        return AsyncQdrantClient(location=MEMORY_LOCATION)
    return AsyncQdrantClient(url=url, api_key=api_key, timeout=CLIENT_TIMEOUT_S)


async def create_collection(client: AsyncQdrantClient, collection: str, dimension: int) -> None:
    """Create the collection: cosine dense and window vectors plus BM25 sparse vector with
    IDF."""
    try:
        dense = models.VectorParams(size=dimension, distance=models.Distance.COSINE)
        sparse = models.SparseVectorParams(modifier=models.Modifier.IDF)
        await client.create_collection(
            collection,
            vectors_config={DENSE: dense, WINDOW: dense},
            sparse_vectors_config={SPARSE: sparse},
        )
    except Exception:
        # Another worker may have created it between the existence check and now.
        if not await client.collection_exists(collection):
            raise


def check_dimension(info: models.CollectionInfo, collection: str, dimension: int) -> None:
    """Raise if the collection lacks our vectors or has another dense size."""
    vectors = info.config.params.vectors
    dense = vectors.get(DENSE) if isinstance(vectors, dict) else None
    sparse = info.config.params.sparse_vectors or {}
    if dense is None or SPARSE not in sparse:
        raise VectorIndexError(
            f"Qdrant collection '{collection}' exists but has no '{DENSE}' dense and "
            f"'{SPARSE}' sparse vectors; it was not created by Engram"
        )
    if dense.size != dimension:
        raise VectorDimensionMismatch(
            f"the Qdrant collection '{collection}'", dense.size, dimension
        )


async def ensure_payload_indexes(
    client: AsyncQdrantClient, collection: str, info: models.CollectionInfo
) -> None:
    """Create the payload indexes the collection does not have yet."""
    existing = info.payload_schema or {}
    for spec in PAYLOAD_INDEXES:
        if spec.field not in existing:
            await client.create_payload_index(
                collection, spec.field, field_schema=index_schema(spec), wait=True
            )
