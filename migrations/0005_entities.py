"""Indexes for enrichment: entities by owner, memories by enrichment state, patterns by owner."""

from app.storage.graph.schema import ensure_range_index
from app.storage.graph.store import GraphStore

RANGE_INDEXES = [
    ("Entity", "user_id"),
    ("Memory", "enrichment_status"),
    ("Pattern", "user_id"),
]


async def up(graph: GraphStore) -> None:
    for label, prop in RANGE_INDEXES:
        await ensure_range_index(graph, label, prop)
