"""Full-text index on Revision.content: `as_of` recall searches what memories said back then."""

from app.storage.graph.schema import ensure_fulltext_index, ensure_range_index
from app.storage.graph.store import GraphStore


async def up(graph: GraphStore) -> None:
    await ensure_fulltext_index(graph, "Revision", "content")
    await ensure_range_index(graph, "Revision", "user_id")
