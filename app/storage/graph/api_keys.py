"""Cypher for API keys made at runtime: `(:ApiKey {key_id, digest, user_id, agent_prefix, label,
admin, created_at, created_by, revoked_at, last_used_at})`, and one `(:ApiKeyRing {id, revision})`
whose revision changes with every revocation (other processes poll it to drop revoked keys).

Only the key's sha256 digest (hex) is stored; the key itself is answered once and never kept.
A revoked key stays, with `revoked_at`, so listings and audit entries can still name it.
"""

from dataclasses import dataclass
from typing import Any

from app.storage.graph.store import GraphStore

RING_ID = "keys"

# The count and the create are one query: FalkorDB runs a graph's writes one at a time, so two
# concurrent creates cannot both pass the limit.
CREATE_KEY = """
OPTIONAL MATCH (held:ApiKey {user_id: $user_id})
WHERE held.revoked_at IS NULL
WITH count(held) AS active
WHERE active < $max_active
CREATE (k:ApiKey {key_id: $key_id, digest: $digest, user_id: $user_id, admin: false,
                  created_at: $now, created_by: $created_by})
SET k.agent_prefix = $agent_prefix, k.label = $label
RETURN properties(k)
"""
ACTIVE_BY_DIGEST = """
MATCH (k:ApiKey {digest: $digest})
WHERE k.revoked_at IS NULL AND k.admin = false
RETURN properties(k)
"""
GET_KEY = """
MATCH (k:ApiKey {key_id: $key_id})
RETURN properties(k)
"""
REVOKE_KEY = """
MATCH (k:ApiKey {key_id: $key_id})
SET k.revoked_at = coalesce(k.revoked_at, $now)
WITH k
MERGE (r:ApiKeyRing {id: $ring})
SET r.revision = $revision
RETURN properties(k)
"""
REVISION = """
MATCH (r:ApiKeyRing {id: $ring})
RETURN r.revision
"""
# Keyset paging in creation order; the cursor is the last key listed (revoked keys stay, so a
# cursor never disappears under a client).
LIST_KEYS = """
OPTIONAL MATCH (after:ApiKey {key_id: $cursor})
WITH after
MATCH (k:ApiKey)
WHERE ($user_id IS NULL OR k.user_id = $user_id)
  AND ($include_revoked OR k.revoked_at IS NULL)
  AND ($cursor IS NULL OR k.created_at > after.created_at
       OR (k.created_at = after.created_at AND k.key_id > after.key_id))
RETURN properties(k) ORDER BY k.created_at, k.key_id LIMIT $limit
"""
TOUCH_KEYS = """
UNWIND $used AS used
MATCH (k:ApiKey {key_id: used.key_id})
SET k.last_used_at = used.at
"""


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    """A stored key, without any secret."""

    key_id: str
    digest: str  # sha256 of the key, hex
    user_id: str
    created_at: str
    agent_prefix: str | None = None
    label: str | None = None
    created_by: str | None = None
    revoked_at: str | None = None
    last_used_at: str | None = None


def _record(props: dict[str, Any]) -> ApiKeyRecord:
    return ApiKeyRecord(
        key_id=props["key_id"],
        digest=props["digest"],
        user_id=props["user_id"],
        created_at=props["created_at"],
        agent_prefix=props.get("agent_prefix"),
        label=props.get("label"),
        created_by=props.get("created_by"),
        revoked_at=props.get("revoked_at"),
        last_used_at=props.get("last_used_at"),
    )


async def create_key(graph: GraphStore, record: ApiKeyRecord, max_active: int) -> bool:
    """Stores a new key; False when its user already holds `max_active` unrevoked keys."""
    params = {
        "key_id": record.key_id,
        "digest": record.digest,
        "user_id": record.user_id,
        "agent_prefix": record.agent_prefix,
        "label": record.label,
        "now": record.created_at,
        "created_by": record.created_by,
        "max_active": max_active,
    }
    return bool(await graph.query(CREATE_KEY, params))


async def active_by_digest(graph: GraphStore, digest: str) -> ApiKeyRecord | None:
    rows = await graph.ro_query(ACTIVE_BY_DIGEST, {"digest": digest})
    return _record(rows[0][0]) if rows else None


async def get_key(graph: GraphStore, key_id: str) -> ApiKeyRecord | None:
    rows = await graph.ro_query(GET_KEY, {"key_id": key_id})
    return _record(rows[0][0]) if rows else None


async def revoke_key(
    graph: GraphStore, key_id: str, now: str, revision: str
) -> ApiKeyRecord | None:
    """Marks the key revoked (the first revocation's time stays) and changes the ring's
    revision; None for an unknown key."""
    params = {"key_id": key_id, "now": now, "ring": RING_ID, "revision": revision}
    rows = await graph.query(REVOKE_KEY, params)
    return _record(rows[0][0]) if rows else None


async def revision(graph: GraphStore) -> str | None:
    """The ring's revision; None before the first revocation."""
    rows = await graph.ro_query(REVISION, {"ring": RING_ID})
    return rows[0][0] if rows else None


async def list_keys(
    graph: GraphStore,
    *,
    user_id: str | None,
    include_revoked: bool,
    cursor: str | None,
    limit: int,
) -> list[ApiKeyRecord]:
    params = {
        "user_id": user_id,
        "include_revoked": include_revoked,
        "cursor": cursor,
        "limit": limit,
    }
    rows = await graph.ro_query(LIST_KEYS, params)
    return [_record(row[0]) for row in rows]


async def touch_keys(graph: GraphStore, used: dict[str, str]) -> None:
    """Records when each key (by id) was last used."""
    if used:
        rows = [{"key_id": key_id, "at": at} for key_id, at in used.items()]
        await graph.query(TOUCH_KEYS, {"used": rows})
