"""Indexes for API keys made at runtime: looked up by digest on a cache miss, by id to revoke,
listed by user."""

from app.storage.graph.schema import ensure_range_index
from app.storage.graph.store import GraphStore

RANGE_INDEXES = [("ApiKey", "digest"), ("ApiKey", "key_id"), ("ApiKey", "user_id")]


async def up(graph: GraphStore) -> None:
    for label, prop in RANGE_INDEXES:
        await ensure_range_index(graph, label, prop)
