"""POST /memory's write: a new memory, unless a current one of the same owner already has exactly
its content, which is then reinforced instead (app/memories/duplicates.py says which memories
take part, and why).

The lookup and the write are one query: FalkorDB runs one write query at a time per graph, so of
two identical requests racing, the second finds the first's memory; they never both store. The
lookup starts from the range index on `content_hash` (migrations/0001) and compares the content
itself, so a hash collision cannot merge two texts.
"""

from dataclasses import dataclass
from typing import Any

from app.models import Memory
from app.scope import Scope
from app.storage.falkordb.client import FalkorGraph
from app.storage.graph.cypher import scope_predicate
from app.storage.graph.idempotency import Claim, KeyTaken, guarded
from app.storage.graph.records import memory_from_properties, memory_to_properties, scope_params

# Marks the refs of an idempotency key whose request was answered with an existing memory, so that
# a retry answers the same (the key's refs are [memory id, DUPLICATE_REF]).
DUPLICATE_REF = "duplicate"

# A memory that absorbs a new one: in the caller's scope, of the same owner (user and agent, the
# agent compared exactly: a parent's or a shared memory is not the agent's own), the same layer
# and role, outside any conversation session, and current: not archived, not expired, not
# invalidated (t_invalid passed), not replaced (a successor, or a consolidated replacement).
_SAME_CURRENT = f"""
OPTIONAL MATCH (d:Memory {{content_hash: $hash}})
WHERE {scope_predicate("d")} AND coalesce(d.agent_id, '') = coalesce($row.agent_id, '')
  AND d.content = $row.content AND d.layer = $row.layer
  AND coalesce(d.role, 'user') = $row.role AND d.session_id IS NULL
  AND NOT coalesce(d.archived, false) AND (d.expires_at IS NULL OR d.expires_at > $now)
  AND (d.t_invalid IS NULL OR d.t_invalid > $now) AND d.superseded_by IS NULL
  AND outdegree(d, ['INVALIDATED_BY', 'EVOLVED_INTO']) = 0
WITH d ORDER BY d.created_at LIMIT 1
"""
# Either the new memory with its audit event (CREATE_MEMORIES's), or a use of the existing one
# (recall's access reinforcement: app/recall/access.py); its TTL is renewed apart (RENEW_EXPIRY).
_CREATE_OR_REINFORCE = """
FOREACH (row IN CASE WHEN d IS NULL THEN [$row] ELSE [] END |
  CREATE (m:Memory) SET m = row
  CREATE (:AuditEvent {id: row.id + ':1', memory_id: row.id, user_id: row.user_id,
          agent_id: row.agent_id, actor: $actor, action: 'create', version: 1,
          at: row.created_at}))
FOREACH (x IN CASE WHEN d IS NULL THEN [] ELSE [d] END |
  SET x.last_accessed = $now, x.access_count = coalesce(x.access_count, 0) + 1)
WITH d, coalesce(d.id, $row.id) AS id
"""
_KEY_REFS = """
MATCH (k:IdempotencyKey {user_id: $idem_user, key: $idem_key})
SET k.refs = CASE WHEN d IS NULL THEN [id] ELSE [id, $duplicate_ref] END
WITH d, id
"""
_OUTCOME = """
OPTIONAL MATCH (t:Tombstone {content_hash: $hash, user_id: $user_id})
RETURN id, count(t) > 0, CASE WHEN d IS NULL THEN NULL ELSE properties(d) END
"""
STORE_UNLESS_DUPLICATE = _SAME_CURRENT + _CREATE_OR_REINFORCE + _OUTCOME
STORE_UNLESS_DUPLICATE_CLAIMED = guarded(
    _SAME_CURRENT + _CREATE_OR_REINFORCE + _KEY_REFS + _OUTCOME
)

# The TTL renewal of a reinforced memory, as recall's: only while it is live and has a TTL.
RENEW_EXPIRY = """
MATCH (m:Memory {id: $id}) WHERE m.user_id = $user_id AND m.ttl_days IS NOT NULL
  AND NOT coalesce(m.pinned, false) AND NOT coalesce(m.archived, false)
  AND (m.expires_at IS NULL OR m.expires_at > $now)
SET m.expires_at = $expires_at
RETURN m.expires_at
"""


@dataclass(frozen=True)
class Written:
    """What the write did: stored the memory, or found `existing` (already reinforced)."""

    memory_id: str
    previously_deleted: bool
    existing: Memory | None


async def store_unless_duplicate(
    graph: FalkorGraph, scope: Scope, memory: Memory, actor: str, now: str, claim: Claim | None
) -> Written:
    """Stores `memory` unless a current memory of its owner has its content (see _SAME_CURRENT);
    that one gets one more access instead. With a claim, its idempotency key is written in the
    same query (KeyTaken, and nothing written, if it is live already)."""
    params: dict[str, Any] = {
        "row": memory_to_properties(memory),
        "hash": memory.content_hash,
        "actor": actor,
        "now": now,
        **scope_params(scope),
    }
    if claim is None:
        rows = await graph.query(STORE_UNLESS_DUPLICATE, params)
    else:
        params.update(claim.params(), duplicate_ref=DUPLICATE_REF)
        rows = await graph.query(STORE_UNLESS_DUPLICATE_CLAIMED, params)
        if not rows:
            raise KeyTaken(claim.key)
    memory_id, deleted_before, existing = rows[0]
    found = memory_from_properties(existing) if existing is not None else None
    return Written(memory_id, bool(deleted_before), found)


async def renew_expiry(
    graph: FalkorGraph, user_id: str, memory_id: str, expires_at: str, now: str
) -> bool:
    """Sets a live memory's new expires_at; False if it has no TTL, is pinned or is no longer
    live."""
    params = {"id": memory_id, "user_id": user_id, "expires_at": expires_at, "now": now}
    return bool(await graph.query(RENEW_EXPIRY, params))
