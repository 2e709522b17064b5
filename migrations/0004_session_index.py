"""Range index on Memory.session_id: a new turn looks up its session's latest turn by it."""

from app.storage.graph import GraphStore
from app.storage.schema import ensure_range_index


async def up(graph: GraphStore) -> None:
    await ensure_range_index(graph, "Memory", "session_id")
