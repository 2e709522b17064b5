"""Cypher for /remember: sessions, the raw layer, consolidation links and raw-layer retention.

A `(:Session {user_id, session_id})` node tracks a conversation's activity; `activity` counts
/remember calls, so that a consolidation job scheduled after an earlier call can tell that the
session has moved on since. Every query names its owner.
"""

from collections.abc import Sequence
from typing import Any, TypedDict

from app.models import Memory
from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import memory_from_properties, scope_params, to_memory
from app.storage.graph.store import GraphStore

TOUCH_SESSION = """
MERGE (s:Session {user_id: $user_id, session_id: $session_id})
ON CREATE SET s.created_at = $now, s.activity = 0, s.turns = 0
SET s.last_activity = $now, s.activity = s.activity + 1, s.turns = s.turns + $turns,
    s.agent_id = $agent_id
RETURN s.activity
"""
SESSION_ACTIVITY = """
MATCH (s:Session {user_id: $user_id, session_id: $session_id})
RETURN s.activity
"""
MARK_CONSOLIDATED = """
MATCH (s:Session {user_id: $user_id, session_id: $session_id})
SET s.consolidated_at = $now, s.consolidations = coalesce(s.consolidations, 0) + 1
"""
# Raw facts of one owner and agent with this exact content (the first dedup step).
RAW_WITH_HASH = """
MATCH (m:Memory {content_hash: $hash})
WHERE m.user_id = $user_id AND m.layer = 'raw'
  AND coalesce(m.agent_id, '') = coalesce($agent_id, '')
RETURN m.id LIMIT 1
"""
# The raw facts of the user with these (agent, hash) keys, the newest of each key.
RAW_BY_HASHES = """
UNWIND $keys AS key
MATCH (m:Memory {content_hash: key.hash})
WHERE m.user_id = $user_id AND m.layer = 'raw'
  AND coalesce(m.agent_id, '') = coalesce(key.agent_id, '')
RETURN key.agent_id, key.hash, properties(m) ORDER BY m.created_at
"""
# The session's raw facts still waiting for consolidation (current, not yet superseded).
UNCONSOLIDATED = """
MATCH (m:Memory {session_id: $session_id})
WHERE m.user_id = $user_id AND m.layer = 'raw' AND m.superseded_by IS NULL
  AND m.t_invalid IS NULL
RETURN m ORDER BY m.created_at
"""
CONSOLIDATED_OF_SESSION = """
MATCH (m:Memory {session_id: $session_id})
WHERE m.user_id = $user_id AND m.layer = 'consolidated' AND m.t_invalid IS NULL
RETURN m ORDER BY m.created_at
"""
CONSOLIDATED_WITH_HASH = """
MATCH (m:Memory {content_hash: $hash})
WHERE m.user_id = $user_id AND m.layer = 'consolidated' AND m.t_invalid IS NULL
  AND coalesce(m.agent_id, '') = coalesce($agent_id, '')
RETURN m LIMIT 1
"""
# Consolidated memory -[:DERIVED_FROM]-> raw source; the source records who replaced it.
LINK_DERIVED = """
UNWIND $rows AS row
MATCH (c:Memory {id: row.consolidated}), (r:Memory {id: row.raw})
WHERE c.user_id = $user_id AND r.user_id = $user_id
MERGE (c)-[e:DERIVED_FROM]->(r)
SET e.transformation = row.transformation, e.strength = 1.0, e.updated_at = $now,
    r.superseded_by = c.id,
    c.derived_from = CASE WHEN r.id IN c.derived_from THEN c.derived_from
                          ELSE c.derived_from + r.id END
RETURN count(e)
"""
# Current memories of the owner about the same thing (contradiction candidates beside the
# vector neighbours: "lives in Prague" and "moved to Berlin" are not close as vectors).
SAME_SLOT = f"""
MATCH (m:Memory {{slot: $slot}})
WHERE {IN_SCOPE} AND m.t_invalid IS NULL
RETURN m ORDER BY m.timestamp DESC LIMIT $limit
"""
# Current memories in scope that fill any slot (an ending may match its item in any attribute).
SLOTTED = f"""
MATCH (m:Memory)
WHERE {IN_SCOPE} AND m.slot IS NOT NULL AND m.t_invalid IS NULL
RETURN m ORDER BY m.timestamp DESC LIMIT $limit
"""
# Superseded raw facts past retention that nothing but system links refer to.
EXPIRED_RAW = """
MATCH (m:Memory)
WHERE m.layer = 'raw' AND m.superseded_by IS NOT NULL AND m.created_at < $before
  AND NOT m.pinned
  AND NOT (m)-[:RELATES_TO|LEADS_TO|OCCURRED_BEFORE|PREFERS_OVER|EXEMPLIFIES|CONTRADICTS|REINFORCES|PART_OF]-(:Memory)
RETURN m.user_id, m.agent_id, m.id ORDER BY m.created_at LIMIT $limit
"""  # noqa: E501


# Transcript turns said before $before (TRANSCRIPT_RETENTION_DAYS), pinned ones kept.
EXPIRED_TRANSCRIPTS = """
MATCH (m:Memory)
WHERE m.layer = 'transcript' AND m.timestamp < $before AND NOT m.pinned
RETURN m.user_id, m.agent_id, m.id ORDER BY m.timestamp LIMIT $limit
"""


async def touch_session(
    graph: GraphStore,
    user_id: str,
    session_id: str,
    *,
    agent_id: str | None,
    turns: int,
    now: str,
) -> int:
    """Records activity on a session (created on first use); returns its activity counter."""
    params = {
        "user_id": user_id,
        "session_id": session_id,
        "agent_id": agent_id,
        "turns": turns,
        "now": now,
    }
    rows = await graph.query(TOUCH_SESSION, params)
    return int(rows[0][0])


async def session_activity(graph: GraphStore, user_id: str, session_id: str) -> int | None:
    """How many /remember calls the session has had (None if it does not exist)."""
    rows = await graph.ro_query(SESSION_ACTIVITY, {"user_id": user_id, "session_id": session_id})
    return int(rows[0][0]) if rows else None


async def mark_consolidated(graph: GraphStore, user_id: str, session_id: str, now: str) -> None:
    params = {"user_id": user_id, "session_id": session_id, "now": now}
    await graph.query(MARK_CONSOLIDATED, params)


async def raw_with_hash(
    graph: GraphStore, user_id: str, agent_id: str | None, content_hash: str
) -> str | None:
    params = {"user_id": user_id, "agent_id": agent_id, "hash": content_hash}
    rows = await graph.ro_query(RAW_WITH_HASH, params)
    return rows[0][0] if rows else None


async def raw_by_hashes(
    graph: GraphStore, user_id: str, keys: Sequence[tuple[str | None, str]]
) -> dict[tuple[str | None, str], Memory]:
    """The raw fact of the user for each (agent_id, content_hash) key that has one."""
    params = {"user_id": user_id, "keys": [{"agent_id": a, "hash": h} for a, h in keys]}
    rows = await graph.ro_query(RAW_BY_HASHES, params)
    return {(row[0], row[1]): memory_from_properties(row[2]) for row in rows}


async def unconsolidated(graph: GraphStore, user_id: str, session_id: str) -> list[Memory]:
    rows = await graph.ro_query(UNCONSOLIDATED, {"user_id": user_id, "session_id": session_id})
    return [to_memory(row[0]) for row in rows]


async def consolidated_of_session(graph: GraphStore, user_id: str, session_id: str) -> list[Memory]:
    params = {"user_id": user_id, "session_id": session_id}
    return [to_memory(row[0]) for row in await graph.ro_query(CONSOLIDATED_OF_SESSION, params)]


async def consolidated_with_hash(
    graph: GraphStore, user_id: str, agent_id: str | None, content_hash: str
) -> Any:
    params = {"user_id": user_id, "agent_id": agent_id, "hash": content_hash}
    rows = await graph.ro_query(CONSOLIDATED_WITH_HASH, params)
    return to_memory(rows[0][0]) if rows else None


async def link_derived(
    graph: GraphStore, user_id: str, rows: Sequence[dict[str, str]], *, now: str
) -> None:
    """DERIVED_FROM consolidated → raw, and `superseded_by` on each raw source."""
    if rows:
        await graph.query(LINK_DERIVED, {"rows": list(rows), "user_id": user_id, "now": now})


async def expired_raw(
    graph: GraphStore, *, before: str, limit: int
) -> list[tuple[str, str | None, str]]:
    """(user_id, agent_id, id) of superseded raw facts older than `before`, no authored links."""
    rows = await graph.ro_query(EXPIRED_RAW, {"before": before, "limit": limit})
    return [(row[0], row[1], row[2]) for row in rows]


async def expired_transcripts(
    graph: GraphStore, *, before: str, limit: int
) -> list[tuple[str, str | None, str]]:
    """(user_id, agent_id, id) of transcript turns said before `before`."""
    rows = await graph.ro_query(EXPIRED_TRANSCRIPTS, {"before": before, "limit": limit})
    return [(row[0], row[1], row[2]) for row in rows]


async def slotted(graph: GraphStore, scope: Scope, *, limit: int = 200) -> list[Memory]:
    """Current memories in scope that fill a fact slot, newest first."""
    params = {"limit": limit, **scope_params(scope)}
    return [to_memory(row[0]) for row in await graph.ro_query(SLOTTED, params)]


async def same_slot(graph: GraphStore, scope: Scope, slot: str, *, limit: int = 10) -> list[Memory]:
    """Current memories in scope that fill the same fact slot, newest first."""
    params = {"slot": slot, "limit": limit, **scope_params(scope)}
    return [to_memory(row[0]) for row in await graph.ro_query(SAME_SLOT, params)]


SESSION_MEMORYLESS = """
MATCH (s:Session {user_id: $user_id, session_id: $session_id})
RETURN coalesce(s.memoryless, false)
"""
# A session's record is the caller's if no agent touched it last, or their agent or one of its
# sub-agents did (the memories' rule: a sibling agent never sees it).
SESSION_IN_SCOPE = (
    "(s.agent_id IS NULL OR s.agent_id = $agent_id OR s.agent_id STARTS WITH ($agent_id + ':'))"
)
# Creates the session if need be: a session made memoryless before its first message stays so.
# A session another agent's (outside the caller's scope) is left as it is, and nothing returned.
# (The test is projected first: FalkorDB reads `WITH s WHERE …` after an OPTIONAL MATCH as part
# of the optional match, keeping the row with s null.)
SET_MEMORYLESS = f"""
OPTIONAL MATCH (s:Session {{user_id: $user_id, session_id: $session_id}})
WITH s IS NULL OR {SESSION_IN_SCOPE} AS allowed
WHERE allowed
MERGE (t:Session {{user_id: $user_id, session_id: $session_id}})
ON CREATE SET t.created_at = $now, t.activity = 0, t.turns = 0, t.agent_id = $agent_id
SET t.memoryless = $memoryless
RETURN t.created_at, t.activity, t.turns, coalesce(t.last_activity, t.created_at)
"""
SESSION_INFO = f"""
MATCH (s:Session {{user_id: $user_id, session_id: $session_id}})
WHERE {SESSION_IN_SCOPE}
RETURN s.created_at, s.activity, s.turns, coalesce(s.last_activity, s.created_at),
       coalesce(s.memoryless, false)
"""


class SessionRecord(TypedDict):
    """A session as GET/PUT /sessions/{id} report it."""

    session_id: str
    created_at: str
    calls: int
    messages_posted: int
    last_activity: str
    memoryless: bool


async def is_memoryless(graph: GraphStore, scope: Scope, session_id: str) -> bool:
    """Whether the session was made memoryless (nothing of it is stored or read)."""
    params = {"user_id": scope.user_id, "session_id": session_id}
    rows = await graph.ro_query(SESSION_MEMORYLESS, params)
    return bool(rows and rows[0][0])


async def set_memoryless(
    graph: GraphStore, scope: Scope, session_id: str, memoryless: bool, now: str
) -> SessionRecord | None:
    """Makes the session memoryless (or not again); returns its record (None for a session of
    an agent outside the caller's scope, which is left unchanged)."""
    params = {
        "user_id": scope.user_id,
        "session_id": session_id,
        "agent_id": scope.agent_id,
        "memoryless": memoryless,
        "now": now,
    }
    rows = await graph.query(SET_MEMORYLESS, params)
    return _session_record(session_id, [*rows[0], memoryless]) if rows else None


async def session_info(graph: GraphStore, scope: Scope, session_id: str) -> SessionRecord | None:
    """The session's record (None if no message or setting ever reached it, or it is another
    agent's, outside the caller's scope)."""
    params = {"user_id": scope.user_id, "session_id": session_id, "agent_id": scope.agent_id}
    rows = await graph.ro_query(SESSION_INFO, params)
    return _session_record(session_id, rows[0]) if rows else None


def _session_record(session_id: str, row: list[Any]) -> SessionRecord:
    created_at, activity, turns, last_activity, memoryless = row
    return {
        "session_id": session_id,
        "created_at": created_at,
        "calls": int(activity or 0),
        "messages_posted": int(turns or 0),
        "last_activity": last_activity,
        "memoryless": bool(memoryless),
    }
