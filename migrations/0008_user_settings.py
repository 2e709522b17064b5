"""Index for a user's settings (Personal Intelligence), read on every recall."""

from app.storage.graph import GraphStore
from app.storage.schema import ensure_range_index


async def up(graph: GraphStore) -> None:
    await ensure_range_index(graph, "UserSettings", "user_id")
