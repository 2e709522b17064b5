"""Cypher for erasure: content removed for privacy, from every place the graph holds it.

A memory's content lives in its node (content, summary, tags, metadata…), in every Revision
(full copies of earlier states) and in what enrichment derived from it (Entity names). Erased,
only its Tombstone stays, reduced to ids, times, actor and the content hash, with an audit
event `erase`. Each step is idempotent: an interrupted erasure is finished by running it again.
"""

from collections.abc import Sequence

from app.storage.graph import settings_cache
from app.storage.graph.store import GraphStore

# Summaries made from the erased memories (DERIVED_FROM and SUMMARIZES point from a summary to
# its sources): they restate the erased content, so they are erased too.
DERIVED = """
MATCH (d:Memory)-[:DERIVED_FROM|SUMMARIZES*1..4]->(s:Memory) WHERE s.id IN $ids
RETURN DISTINCT d.id
"""
# Which of the ids exist in the scope's history (live or deleted) and their owner's id.
KNOWN = """
MATCH (m:Memory) WHERE m.id IN $ids RETURN m.id AS id, m.user_id AS user, m.agent_lineage AS lineage
UNION
MATCH (t:Tombstone) WHERE t.memory_id IN $ids
RETURN t.memory_id AS id, t.user_id AS user, t.agent_lineage AS lineage
UNION
MATCH (r:Revision) WHERE r.memory_id IN $ids
RETURN r.memory_id AS id, r.user_id AS user, r.agent_lineage AS lineage
"""
USER_MEMORY_IDS = """
MATCH (m:Memory {user_id: $user_id}) RETURN m.id AS id
UNION
MATCH (t:Tombstone {user_id: $user_id}) RETURN t.memory_id AS id
UNION
MATCH (r:Revision {user_id: $user_id}) RETURN r.memory_id AS id
"""
# The texts the erasure removes: what the check of the files afterwards looks for.
TEXTS = """
MATCH (m:Memory) WHERE m.id IN $ids RETURN m.content AS text
UNION
MATCH (r:Revision) WHERE r.memory_id IN $ids RETURN r.content AS text
"""
TOMBSTONE_LIVE = """
UNWIND $ids AS id
MATCH (m:Memory {id: id})
MERGE (t:Tombstone {memory_id: m.id})
ON CREATE SET t.user_id = m.user_id, t.agent_id = m.agent_id, t.agent_lineage = m.agent_lineage,
    t.content_hash = m.content_hash, t.deleted_at = $now, t.actor = $actor, t.version = m.version
WITH m
DETACH DELETE m
"""
DELETE_REVISIONS = "MATCH (r:Revision) WHERE r.memory_id IN $ids DETACH DELETE r"
# The tombstone keeps ids, times, actor and the hash only; the erasure is audited.
REDUCE_TOMBSTONES = """
MATCH (t:Tombstone) WHERE t.memory_id IN $ids
SET t = {memory_id: t.memory_id, user_id: t.user_id, agent_id: t.agent_id,
         agent_lineage: coalesce(t.agent_lineage, []), content_hash: t.content_hash,
         deleted_at: t.deleted_at, actor: t.actor, version: t.version,
         erased_at: $now, erased_by: $actor}
MERGE (e:AuditEvent {id: t.memory_id + ':erase'})
SET e.memory_id = t.memory_id, e.user_id = t.user_id, e.agent_id = t.agent_id,
    e.actor = $actor, e.action = 'erase', e.version = t.version, e.at = $now
RETURN t.memory_id
"""
# Entities no memory mentions any more: their names came from erased (or deleted) content.
ORPHAN_ENTITIES = """
MATCH (x:Entity) WHERE x.user_id IN $users
OPTIONAL MATCH (x)<-[r:MENTIONS]-(:Memory)
WITH x, count(r) AS refs WHERE refs = 0
DETACH DELETE x
RETURN count(x)
"""
# Idempotency keys too: each keeps its request's response (memory ids) for a day.
USER_LEFTOVERS = """
MATCH (n) WHERE (n:Session OR n:Pattern OR n:Entity OR n:Reflection OR n:UserSettings
  OR n:IdempotencyKey) AND n.user_id = $user_id
DETACH DELETE n
RETURN count(n)
"""
USER_ERASED_EVENT = """
CREATE (:AuditEvent {id: 'user:' + $user_id + ':erase:' + $now, memory_id: null,
        user_id: $user_id, actor: $actor, action: 'erase_user', at: $now, memories: $count})
"""


async def derived_from(graph: GraphStore, ids: Sequence[str]) -> set[str]:
    return {row[0] for row in await graph.ro_query(DERIVED, {"ids": list(ids)})}


async def known(graph: GraphStore, ids: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
    """id -> (owner, agent lineage) for ids the graph holds anything of."""
    rows = await graph.ro_query(KNOWN, {"ids": list(ids)})
    return {row[0]: (row[1], list(row[2] or [])) for row in rows}


async def memory_ids_of_user(graph: GraphStore, user_id: str) -> list[str]:
    rows = await graph.ro_query(USER_MEMORY_IDS, {"user_id": user_id})
    return sorted({row[0] for row in rows})


async def texts_of(graph: GraphStore, ids: Sequence[str]) -> list[str]:
    """The contents of these memories and of every revision of them."""
    rows = await graph.ro_query(TEXTS, {"ids": list(ids)})
    return sorted({row[0] for row in rows if row[0]})


async def erase_memories(
    graph: GraphStore, ids: Sequence[str], users: Sequence[str], *, actor: str, now: str
) -> list[str]:
    """Erases these memories' content from the graph; returns the ids now tombstoned."""
    params = {"ids": list(ids), "actor": actor, "now": now}
    await graph.query(TOMBSTONE_LIVE, params)
    await graph.query(DELETE_REVISIONS, {"ids": list(ids)})
    erased = [row[0] for row in await graph.query(REDUCE_TOMBSTONES, params)]
    await graph.query(ORPHAN_ENTITIES, {"users": sorted(set(users))})
    return erased


async def erase_user_leftovers(
    graph: GraphStore, user_id: str, *, actor: str, now: str, count: int
) -> int:
    """A user's sessions, settings, patterns, entities and idempotency keys; the user's erasure
    is audited."""
    try:
        rows = await graph.query(USER_LEFTOVERS, {"user_id": user_id})
    finally:  # the user's settings are gone: their defaults apply from the next recall on
        settings_cache.forget(graph, user_id)
    params = {"user_id": user_id, "actor": actor, "now": now, "count": count}
    await graph.query(USER_ERASED_EVENT, params)
    return int(rows[0][0]) if rows else 0
