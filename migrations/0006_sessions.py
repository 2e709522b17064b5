"""Indexes for /remember: sessions by owner and id, memories by layer and fact slot."""

from app.storage.graph.schema import ensure_range_index
from app.storage.graph.store import GraphStore

RANGE_INDEXES = [
    ("Session", "user_id"),
    ("Session", "session_id"),
    ("Memory", "layer"),
    ("Memory", "slot"),
]


async def up(graph: GraphStore) -> None:
    for label, prop in RANGE_INDEXES:
        await ensure_range_index(graph, label, prop)
