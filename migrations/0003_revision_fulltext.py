"""Full-text index on Revision.content: `as_of` recall searches what memories said back then."""

from app.storage.graph import GraphStore
from app.storage.schema import ensure_fulltext_index, ensure_range_index


async def up(graph: GraphStore) -> None:
    await ensure_fulltext_index(graph, "Revision", "content")
    await ensure_range_index(graph, "Revision", "user_id")
