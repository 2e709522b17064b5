"""Cypher for access reinforcement (app/recall/access.py): which recalled memories are live, with
their TTL, and the one write that reinforces them. Memories are addressed by id and owner
(`row.user_id`); every row names both."""

from typing import Any

from app.storage.graph.store import GraphStore

# The recorded memories that may be reinforced (live: not archived, not expired), with their TTL.
LIVE = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user_id
  AND NOT coalesce(m.archived, false) AND (m.expires_at IS NULL OR m.expires_at > $now)
RETURN m.id, CASE WHEN coalesce(m.pinned, false) THEN NULL ELSE m.ttl_days END
"""
REINFORCE = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user_id
SET m.last_accessed = $now, m.access_count = coalesce(m.access_count, 0) + row.n,
    m.expires_at = coalesce(row.expires_at, m.expires_at)
RETURN CASE WHEN row.expires_at IS NULL THEN NULL ELSE m.id END, m.expires_at
"""


async def live(graph: GraphStore, rows: list[dict[str, Any]], now: str) -> dict[Any, Any]:
    """The rows' memories that are live, each with its TTL in days (None: pinned, or none)."""
    return dict(await graph.ro_query(LIVE, {"rows": rows, "now": now}))


async def reinforce(graph: GraphStore, rows: list[dict[str, Any]], now: str) -> list[list[Any]]:
    """Reinforces the rows' memories; returns [id, expires_at] per memory, the id None where its
    row renewed no expiry."""
    return await graph.query(REINFORCE, {"rows": rows, "now": now})
