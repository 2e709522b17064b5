"""Index for a user's settings (Personal Intelligence), read on every recall."""

from app.storage.graph.schema import ensure_range_index
from app.storage.graph.store import GraphStore


async def up(graph: GraphStore) -> None:
    await ensure_range_index(graph, "UserSettings", "user_id")
