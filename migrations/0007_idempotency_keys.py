"""Indexes for Idempotency-Key: keys are looked up by user and key."""

from app.storage.graph import GraphStore
from app.storage.schema import ensure_range_index


async def up(graph: GraphStore) -> None:
    await ensure_range_index(graph, "IdempotencyKey", "user_id")
    await ensure_range_index(graph, "IdempotencyKey", "key")
