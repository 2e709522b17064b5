"""Cypher for the paths that act on everything of one user, whatever the agent (DELETE /me).

The caller's route decides that the user is the caller; every query here is bound to that
user id.
"""

from collections.abc import Sequence

from app.storage.graph.cypher import DELETE_MEMORIES, IN_SCOPE
from app.storage.graph.store import GraphStore

LIVE_IDS = "MATCH (m:Memory {user_id: $user_id}) RETURN m.id ORDER BY m.id LIMIT $limit"
# DELETE_MEMORIES (revision, tombstone, audit event each) for any agent of the user.
DELETE_OF_USER = DELETE_MEMORIES.replace(IN_SCOPE, "m.user_id = $user_id")


async def live_ids(graph: GraphStore, user_id: str, *, limit: int) -> list[str]:
    """Ids of the user's live memories, in id order."""
    return [row[0] for row in await graph.ro_query(LIVE_IDS, {"user_id": user_id, "limit": limit})]


async def delete_memories(
    graph: GraphStore, user_id: str, memory_ids: Sequence[str], *, actor: str, now: str
) -> list[str]:
    """Deletes the user's memories among the ids, as GraphStore.delete_memories does."""
    params = {"ids": list(memory_ids), "user_id": user_id, "actor": actor, "now": now}
    return [row[0] for row in await graph.query(DELETE_OF_USER, params)]
