"""Cypher for reflections: the per-user message counter, current facts, the current reflection.

A `(:Reflection {user_id})` node counts the user messages /remember stored (`user_messages`),
remembers the last job it counted (a re-delivered job counts nothing again) and points at the
user's current reflection (`current`, a memory id). Every query names its owner.
"""

from typing import Any

from app.models import Memory
from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import scope_params, to_memory
from app.storage.graph.store import GraphStore

# Returns the count before and after; a job already counted adds nothing.
COUNT_USER_MESSAGES = """
MERGE (r:Reflection {user_id: $user_id})
ON CREATE SET r.user_messages = 0, r.last_job = null
WITH r, r.user_messages AS before, coalesce(r.last_job, '') = $job AS counted
SET r.user_messages = CASE WHEN counted THEN before ELSE before + $count END,
    r.last_job = $job
RETURN before, r.user_messages
"""
# Facts about the user that hold now: slotted, not invalidated, not archived.
CURRENT_FACTS = f"""
MATCH (m:Memory)
WHERE {IN_SCOPE} AND m.slot IS NOT NULL AND m.t_invalid IS NULL
  AND m.layer IN ['raw', 'consolidated'] AND m.role = 'user'
  AND NOT coalesce(m.archived, false)
RETURN m ORDER BY m.timestamp, m.created_at LIMIT $limit
"""
CURRENT_REFLECTION = """
MATCH (r:Reflection {user_id: $user_id})
RETURN r.current
"""
SET_CURRENT = """
MERGE (r:Reflection {user_id: $user_id})
ON CREATE SET r.user_messages = 0
SET r.current = $memory_id, r.reflected_at = $now,
    r.reflections = coalesce(r.reflections, 0) + 1
"""


async def count_user_messages(
    graph: GraphStore, user_id: str, count: int, *, job: str
) -> tuple[int, int]:
    """Adds `count` user messages (once per job); returns the counter before and after."""
    params: dict[str, Any] = {"user_id": user_id, "count": count, "job": job}
    rows = await graph.query(COUNT_USER_MESSAGES, params)
    return int(rows[0][0]), int(rows[0][1])


async def current_facts(graph: GraphStore, scope: Scope, *, limit: int = 500) -> list[Memory]:
    """The scope's current facts about the user, oldest first. A raw fact promoted to a
    consolidated one is left out for it (an LLM's synthesis has no slot: its raw sources stay)."""
    params = {"limit": limit, **scope_params(scope)}
    facts = [to_memory(row[0]) for row in await graph.ro_query(CURRENT_FACTS, params)]
    ids = {fact.id for fact in facts}
    return [fact for fact in facts if fact.superseded_by not in ids]


async def current_reflection(graph: GraphStore, scope: Scope) -> Memory | None:
    """The user's newest reflection if it is still current (and visible in the scope)."""
    rows = await graph.ro_query(CURRENT_REFLECTION, {"user_id": scope.user_id})
    memory_id = rows[0][0] if rows else None
    if not memory_id:
        return None
    found = (await graph.get_memories(scope, [memory_id])).get(memory_id)
    return found if found is not None and found.t_invalid is None else None


async def reflection_first(graph: GraphStore, scope: Scope, memories: list[Memory]) -> list[Memory]:
    """The memories with the user's current reflection (if any) moved or put first."""
    reflection = await current_reflection(graph, scope)
    if reflection is None:
        return memories
    return [reflection, *(m for m in memories if m.id != reflection.id)]


async def set_current(graph: GraphStore, user_id: str, memory_id: str, now: str) -> None:
    params = {"user_id": user_id, "memory_id": memory_id, "now": now}
    await graph.query(SET_CURRENT, params)
