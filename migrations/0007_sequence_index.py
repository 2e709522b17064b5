"""Range index on Memory.sequence_key: a write without a session looks up the latest memory of
its inferred sequence by it (app/memories/sequence.py)."""

from app.storage.graph.schema import ensure_range_index
from app.storage.graph.store import GraphStore


async def up(graph: GraphStore) -> None:
    await ensure_range_index(graph, "Memory", "sequence_key")
