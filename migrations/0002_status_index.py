"""Range index on Memory.embedding_status: the start-up backlog scan looks memories up by it."""

from app.storage.graph.schema import ensure_range_index
from app.storage.graph.store import GraphStore


async def up(graph: GraphStore) -> None:
    await ensure_range_index(graph, "Memory", "embedding_status")
