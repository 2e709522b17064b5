"""Cypher for fsck: the memories a check reads, and the repairs it may apply.

A check runs either for a caller's scope (the usual tenancy predicate) or, for the admin key,
for one user or every user. Repairs address memories by id and owner.
"""

from collections.abc import Sequence
from typing import Any

from app.models import JSON_PROPERTIES, SPARSE_PROPERTIES, MemoryProps
from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import scope_params
from app.storage.graph.store import GraphStore

OWNER = "($user_id IS NULL OR m.user_id = $user_id)"
PAGE = """
MATCH (m:Memory) WHERE {who} AND m.id > $after
WITH m ORDER BY m.id LIMIT $limit
RETURN properties(m), outdegree(m, ['INVALIDATED_BY', 'EVOLVED_INTO']) > 0
"""
CLEAR_REFERENCES = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user_id
SET m.consolidated_into = CASE WHEN m.consolidated_into IN row.gone THEN NULL
                               ELSE m.consolidated_into END,
    m.superseded_by = CASE WHEN m.superseded_by IN row.gone THEN NULL ELSE m.superseded_by END,
    m.derived_from = [x IN coalesce(m.derived_from, []) WHERE NOT x IN row.gone]
"""
# A JSON property that does not parse back to its empty value ('{}'; no property for the sparse
# `artifacts`), only while it still holds the value fsck read: a concurrent write wins.
RESET_UNREADABLE = {
    key: f"""
UNWIND $rows AS row
MATCH (m:Memory {{id: row.id}}) WHERE m.user_id = row.user_id AND m.{key} = row.stored
SET m.{key} = {"NULL" if key in SPARSE_PROPERTIES else "'{}'"}
"""
    for key in JSON_PROPERTIES
}
TO_PENDING = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user_id SET m.embedding_status = 'pending'
"""


def _who(scope: Scope | None, user_id: str | None) -> tuple[str, dict[str, Any]]:
    if scope is not None:
        return IN_SCOPE, scope_params(scope)
    return OWNER, {"user_id": user_id}


async def page(
    graph: GraphStore, scope: Scope | None, user_id: str | None, *, after: str, limit: int
) -> list[tuple[MemoryProps, bool]]:
    """Raw properties (JSON fields still strings) and "has a successor", in id order."""
    who, params = _who(scope, user_id)
    rows = await graph.ro_rows(PAGE.format(who=who), {**params, "after": after, "limit": limit})
    return [(props, bool(replaced)) for props, replaced in rows]


async def clear_references(graph: GraphStore, rows: Sequence[dict[str, Any]]) -> None:
    """Drops references to memories that no longer exist: rows of {id, user_id, gone}."""
    if rows:
        await graph.query(CLEAR_REFERENCES, {"rows": list(rows)})


async def mark_unembedded(graph: GraphStore, rows: Sequence[dict[str, Any]]) -> None:
    """Back to pending (their vectors are missing): rows of {id, user_id}."""
    if rows:
        await graph.query(TO_PENDING, {"rows": list(rows)})


async def reset_unreadable(graph: GraphStore, rows: Sequence[dict[str, Any]]) -> None:
    """Unparseable JSON properties back to empty: rows of {id, user_id, key, stored}."""
    for key, query in RESET_UNREADABLE.items():
        keyed = [row for row in rows if row["key"] == key]
        if keyed:
            await graph.query(query, {"rows": keyed})
