"""Range indexes for every lookup path, and the full-text index on memory content."""

from app.storage.graph.schema import ensure_fulltext_index, ensure_range_index
from app.storage.graph.store import GraphStore

RANGE_INDEXES = [
    ("Memory", "id"),
    ("Memory", "user_id"),
    ("Memory", "created_at"),
    ("Memory", "content_hash"),
    ("Entity", "slug"),
    ("Revision", "memory_id"),
    ("Tombstone", "memory_id"),
    ("Tombstone", "content_hash"),
    ("AuditEvent", "memory_id"),
    ("AuditEvent", "user_id"),
    ("Migration", "id"),
]


async def up(graph: GraphStore) -> None:
    for label, prop in RANGE_INDEXES:
        await ensure_range_index(graph, label, prop)
    await ensure_fulltext_index(graph, "Memory", "content")
