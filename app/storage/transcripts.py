"""Cypher for transcript turns (app/remember/transcript.py): a session's messages in order, its
latest ones, and the marks that tie turns to the facts extracted from them."""

import json
from collections.abc import Sequence

from app.models import Memory
from app.scope import Scope
from app.storage.cypher import IN_SCOPE
from app.storage.graph import GraphStore
from app.storage.records import memories_of, scope_params

# Record time orders a session's turns as they were posted (consecutive within a call).
SESSION_MESSAGES = f"""
MATCH (m:Memory {{session_id: $session_id}})
WHERE {IN_SCOPE} AND m.layer = 'transcript' AND m.created_at > $after
RETURN properties(m) ORDER BY m.created_at LIMIT $limit
"""
LATEST_MESSAGES = f"""
MATCH (m:Memory {{session_id: $session_id}})
WHERE {IN_SCOPE} AND m.layer = 'transcript' AND NOT m.archived
RETURN properties(m) ORDER BY m.created_at DESC LIMIT $limit
"""
# The turns a superseded fact came from, less those the new fact came from, answer with an
# outdated statement: recall ranks them below the current fact (rank.py `outdated`).
MARK_OUTDATED = """
MATCH (m:Memory) WHERE m.id IN $ids AND m.user_id = $user_id AND m.layer = 'transcript'
SET m.outdated_by = $fact_id
"""
# The ids of these turns the job `job` did not store itself (a repost, not a re-run).
STORED_BEFORE = f"""
MATCH (m:Memory) WHERE m.id IN $ids AND {IN_SCOPE}
RETURN m.id, m.source
"""


async def session_messages(
    graph: GraphStore, scope: Scope, session_id: str, *, after: str, limit: int
) -> list[Memory]:
    """The session's turns in order, those recorded after `after` (a created_at), at most
    `limit`."""
    params = {"session_id": session_id, "after": after, "limit": limit, **scope_params(scope)}
    return memories_of(await graph.ro_query(SESSION_MESSAGES, params))


async def latest_messages(
    graph: GraphStore, scope: Scope, session_id: str, limit: int
) -> list[Memory]:
    """The session's last `limit` turns, oldest first."""
    params = {"session_id": session_id, "limit": limit, **scope_params(scope)}
    return list(reversed(memories_of(await graph.ro_query(LATEST_MESSAGES, params))))


async def mark_outdated(
    graph: GraphStore, user_id: str, turn_ids: Sequence[str], fact_id: str
) -> None:
    if turn_ids:
        params = {"ids": list(turn_ids), "user_id": user_id, "fact_id": fact_id}
        await graph.query(MARK_OUTDATED, params)


async def stored_turns(
    graph: GraphStore, scope: Scope, turn_ids: Sequence[str]
) -> dict[str, str | None]:
    """The turns among `turn_ids` that exist, each with the job that stored it."""
    if not turn_ids:
        return {}
    params = {"ids": list(turn_ids), **scope_params(scope)}
    rows = await graph.ro_query(STORED_BEFORE, params)
    return {row[0]: json.loads(row[1] or "{}").get("remember_job") for row in rows}
