"""Indexes for Idempotency-Key: keys are looked up by user and key."""

from app.storage.graph.schema import ensure_range_index
from app.storage.graph.store import GraphStore


async def up(graph: GraphStore) -> None:
    await ensure_range_index(graph, "IdempotencyKey", "user_id")
    await ensure_range_index(graph, "IdempotencyKey", "key")
