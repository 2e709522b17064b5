"""Range index on Memory.session_id: a new turn looks up its session's latest turn by it."""

from app.storage.graph.schema import ensure_range_index
from app.storage.graph.store import GraphStore


async def up(graph: GraphStore) -> None:
    await ensure_range_index(graph, "Memory", "session_id")
