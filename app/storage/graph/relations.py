"""Cypher for memory-to-memory edges. Both ends are always in the caller's scope: an edge never
crosses users. Relationship types cannot be Cypher parameters, so every query is built once, at
import, from the registry's constant names — never from request values.
"""

from collections.abc import Sequence
from typing import Any

from app.models import Memory
from app.relation_types import REGISTRY
from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import memory_from_properties, scope_params
from app.storage.graph.store import GraphStore

A_IN_SCOPE = IN_SCOPE.replace("m.", "a.")
B_IN_SCOPE = IN_SCOPE.replace("m.", "b.")
MAX_DEPTH = 3


def _create(name: str) -> str:
    return f"""
UNWIND $rows AS row
MATCH (a:Memory {{id: row.a}}), (b:Memory {{id: row.b}})
WHERE {A_IN_SCOPE} AND {B_IN_SCOPE}
MERGE (a)-[r:{name}]->(b)
SET r.strength = row.strength, r.updated_at = $now, r.created_by = $actor, r += row.props
RETURN row.i
"""


def _delete(name: str) -> str:
    return f"""
MATCH (a:Memory {{id: $a}})-[r:{name}]->(b:Memory {{id: $b}})
WHERE {A_IN_SCOPE} AND {B_IN_SCOPE}
DELETE r
RETURN count(r)
"""


def _related(depth: int) -> str:
    return f"""
MATCH (m:Memory {{id: $id}}) WHERE {IN_SCOPE}
MATCH p = (m)-[*1..{depth}]-(x:Memory)
WHERE x.id <> m.id AND all(r IN relationships(p) WHERE type(r) IN $types)
  AND all(n IN nodes(p) WHERE n.user_id = $user_id
          AND (size(n.agent_lineage) = 0 OR $agent_id IN n.agent_lineage))
WITH DISTINCT x ORDER BY x.importance DESC, x.timestamp DESC LIMIT $limit
RETURN properties(x)
"""


CREATE = {name: _create(name) for name in REGISTRY}
DELETE = {name: _delete(name) for name in REGISTRY}
RELATED = {depth: _related(depth) for depth in range(1, MAX_DEPTH + 1)}
# Seeds first, behind WITH, so the walk starts from them, not from every memory of the user
# (see EXPAND_BY_ENTITIES in app/storage/graph/enrichment.py).
EXPAND = f"""
MATCH (s:Memory) WHERE s.id IN $seeds AND s.user_id = $user_id
WITH s
MATCH (s)-[r]-(m:Memory)
WHERE type(r) IN $types AND {IN_SCOPE} AND NOT m.id IN $seeds
  AND coalesce(r.strength, 0.5) >= $min_strength AND coalesce(m.importance, 0.5) >= $min_importance
WITH s, r, m ORDER BY coalesce(r.strength, 0.5) DESC, m.importance DESC, m.id, s.id, type(r)
  LIMIT $limit
RETURN s.id, type(r), coalesce(r.strength, 0.5), properties(m)
"""


async def create_edges(
    graph: GraphStore,
    scope: Scope,
    name: str,
    rows: Sequence[dict[str, Any]],
    *,
    actor: str,
    now: str,
) -> set[int]:
    """Creates (or updates) edges of one type; returns the row indexes that were written."""
    params = {"rows": list(rows), "actor": actor, "now": now, **scope_params(scope)}
    return {row[0] for row in await graph.query(CREATE[name], params)}


async def delete_edge(graph: GraphStore, scope: Scope, name: str, a: str, b: str) -> int:
    """Deletes the edge a-[name]->b if both ends are in scope; returns how many were deleted."""
    rows = await graph.query(DELETE[name], {"a": a, "b": b, **scope_params(scope)})
    return int(rows[0][0]) if rows else 0


async def related(
    graph: GraphStore, scope: Scope, memory_id: str, *, types: Sequence[str], depth: int, limit: int
) -> list[Memory]:
    """Memories reachable within `depth` hops over `types`, every hop inside the scope."""
    params = {"id": memory_id, "types": list(types), "limit": limit, **scope_params(scope)}
    rows = await graph.ro_rows(RELATED[depth], params)
    return [memory_from_properties(row[0]) for row in rows]


async def expand(
    graph: GraphStore,
    scope: Scope,
    seeds: Sequence[str],
    *,
    types: Sequence[str],
    min_strength: float,
    min_importance: float,
    limit: int,
) -> list[tuple[str, str, float, Memory]]:
    """Neighbours of the seeds over `types` in one query: (seed, type, strength, memory)."""
    params = {
        "seeds": list(seeds),
        "types": list(types),
        "min_strength": min_strength,
        "min_importance": min_importance,
        "limit": limit,
        **scope_params(scope),
    }
    rows = await graph.ro_rows(EXPAND, params)
    return [(row[0], row[1], float(row[2]), memory_from_properties(row[3])) for row in rows]
