"""Cypher for enrichment: entity mentions, derived fields, SIMILAR_TO / PRECEDED_BY / EXEMPLIFIES
links, and the scoped entity reads. Every query names the owner (`$user_id`) on both ends of
every edge it writes, so enrichment never links one user's memories to another's.

Entities belong to a user: `(:Entity {user_id, category, slug})` is unique per user, and a
memory points at the entities it mentions with MENTIONS. Reads are scoped through those edges:
a caller sees an entity only through a memory it may see.
"""

from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict

from app.models import Memory
from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import memory_from_properties, scope_params, to_memory
from app.storage.graph.store import GraphStore

# One memory's enrichment, written atomically, only if the memory is still at the version and
# content it was enriched from (a concurrent PATCH wins; the job then runs again). Its mentions
# are replaced; with `relink` (the content changed since its last run) so are the links derived
# from them and from its vector: SIMILAR_TO and the entity PRECEDED_BY (never a session's). It
# returns the memory and the ids at the other end of the entity links it lost (`chained`): their
# own entity links are made again after it (see link_entity_predecessors).
WRITE_ENRICHMENT = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.user_id = $user_id AND m.version = row.version AND m.content_hash = row.content_hash
SET m.tags = row.tags, m.tag_prefixes = row.tag_prefixes, m.summary = row.summary,
    m.metadata = row.metadata, m.type = row.type, m.confidence = row.confidence,
    m.enrichment_status = 'done', m.enriched_at = $now
WITH m, row
OPTIONAL MATCH (m)-[old:MENTIONS]->(:Entity)
DELETE old
WITH DISTINCT m, row
OPTIONAL MATCH (m)-[stale:SIMILAR_TO|PRECEDED_BY]-(other:Memory)
WHERE row.relink AND (type(stale) = 'SIMILAR_TO' OR stale.entity IS NOT NULL)
WITH m, row, stale, CASE WHEN stale IS NULL THEN NULL
                         WHEN type(stale) = 'PRECEDED_BY' THEN other.id END AS chained
DELETE stale
WITH m, row.entities AS entities, collect(chained) AS chained
FOREACH (e IN entities |
  MERGE (x:Entity {user_id: $user_id, category: e.category, slug: e.slug})
  ON CREATE SET x.name = e.name, x.aliases = [e.name], x.created_at = $now
  SET x.last_referenced_at = $now,
      x.aliases = CASE WHEN e.name IN x.aliases THEN x.aliases ELSE x.aliases + e.name END
  MERGE (m)-[:MENTIONS]->(x))
RETURN m, chained
"""
SET_ENRICHMENT_STATUS = """
MATCH (m:Memory) WHERE m.id IN $ids AND m.user_id = $user_id SET m.enrichment_status = $status
"""
# Semantic neighbours, both directions (AutoMem's shape), same owner only.
LINK_SIMILAR = """
UNWIND $pairs AS pair
MATCH (a:Memory {id: pair.a}), (b:Memory {id: pair.b})
WHERE a.user_id = $user_id AND b.user_id = $user_id AND a.id <> b.id
MERGE (a)-[r:SIMILAR_TO]->(b) SET r.score = pair.score, r.strength = pair.score,
      r.updated_at = $now
MERGE (b)-[s:SIMILAR_TO]->(a) SET s.score = pair.score, s.strength = pair.score,
      s.updated_at = $now
RETURN count(r)
"""
# Per entity of the memory: the latest earlier memory of the same owner that mentions it.
LINK_ENTITY_PREDECESSORS = """
UNWIND $ids AS id
MATCH (m:Memory {id: id})-[:MENTIONS]->(x:Entity)<-[:MENTIONS]-(p:Memory)
WHERE m.user_id = $user_id AND p.user_id = $user_id AND p.timestamp < m.timestamp
WITH m, x, max(p.timestamp) AS latest
MATCH (x)<-[:MENTIONS]-(previous:Memory)
WHERE previous.user_id = $user_id AND previous.timestamp = latest
MERGE (m)-[r:PRECEDED_BY]->(previous)
SET r.entity = x.slug, r.strength = 0.5, r.updated_at = $now
RETURN count(r)
"""
# The other direction, for memories enriched out of time order: per entity of the memory, the
# earliest later memory of the same owner that mentions it now follows this one too.
LINK_ENTITY_SUCCESSORS = """
UNWIND $ids AS id
MATCH (m:Memory {id: id})-[:MENTIONS]->(x:Entity)<-[:MENTIONS]-(n:Memory)
WHERE m.user_id = $user_id AND n.user_id = $user_id AND n.timestamp > m.timestamp
WITH m, x, min(n.timestamp) AS earliest
MATCH (x)<-[:MENTIONS]-(next:Memory)
WHERE next.user_id = $user_id AND next.timestamp = earliest
MERGE (next)-[r:PRECEDED_BY]->(m)
SET r.entity = x.slug, r.strength = 0.5, r.updated_at = $now
RETURN count(r)
"""
# A type seen often enough (≥ $min_others other confident memories of the owner) is a pattern;
# each example strengthens it (AutoMem's 0.35 + 0.05 per observation, capped at 0.95). The
# owner's confident memories are counted once per type in the batch, not once per memory.
LINK_PATTERNS = """
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.user_id = $user_id
WITH m.type AS type, collect(m) AS batch
OPTIONAL MATCH (o:Memory {user_id: $user_id, type: type}) WHERE o.confidence > 0.5
WITH batch, count(o) AS confident
UNWIND batch AS m
WITH m, confident - CASE WHEN m.confidence > 0.5 THEN 1 ELSE 0 END AS others
WHERE others >= $min_others
MERGE (p:Pattern {user_id: $user_id, type: m.type})
ON CREATE SET p.created_at = $now, p.observations = 0
MERGE (m)-[e:EXEMPLIFIES]->(p)
ON CREATE SET p.observations = p.observations + 1
SET p.confidence = CASE WHEN 0.35 + 0.05 * p.observations > 0.95 THEN 0.95
                        ELSE 0.35 + 0.05 * p.observations END,
    p.updated_at = $now, e.confidence = p.confidence, e.pattern_type = m.type, e.updated_at = $now
RETURN count(e)
"""

ENTITY_FIELDS = "x.category, x.slug, x.name, x.aliases, x.created_at, x.last_referenced_at"
LIST_ENTITIES = f"""
MATCH (m:Memory)-[:MENTIONS]->(x:Entity)
WHERE {IN_SCOPE} AND ($category IS NULL OR x.category = $category)
WITH x, count(m) AS refs
RETURN {ENTITY_FIELDS}, refs ORDER BY refs DESC, x.slug LIMIT $limit
"""
# The owner's entities first (an Entity belongs to one user), then the memories in scope that
# mention them; as one pattern it walked from every memory of the user.
GET_ENTITY = f"""
MATCH (x:Entity) WHERE x.user_id = $user_id AND (x.slug = $slug OR $name IN x.aliases)
WITH x
MATCH (m:Memory)-[:MENTIONS]->(x)
WHERE {IN_SCOPE}
WITH x, m ORDER BY m.timestamp DESC, m.id
WITH x, count(m) AS refs, collect(m.id)[..$memory_limit] AS memory_ids
RETURN {ENTITY_FIELDS}, refs, memory_ids ORDER BY refs DESC LIMIT 1
"""
# Recall's entity expansion: memories sharing an entity with a seed, every end in scope.
# Seeds first, behind WITH: as one pattern, FalkorDB started from every memory of the user (its
# user_id index) and walked to the seeds, which took seconds on a large store; this way it
# starts from the seeds (same rows; tests/storage/test_query_plans.py checks the plan's shape).
# Ties are ordered, so a cut is stable.
EXPAND_BY_ENTITIES = f"""
MATCH (s:Memory) WHERE s.id IN $seeds AND s.user_id = $user_id
WITH s
MATCH (s)-[:MENTIONS]->(x:Entity)<-[:MENTIONS]-(m:Memory)
WHERE {IN_SCOPE} AND NOT m.id IN $seeds
WITH s, x, m ORDER BY m.importance DESC, m.timestamp DESC, m.id, s.id, x.category, x.slug
  LIMIT $limit
RETURN s.id, x.category + ':' + x.slug, properties(m)
"""
UNENRICHED = """
MATCH (m:Memory) WHERE m.enrichment_status = 'pending' AND m.embedding_status = 'done'
  AND m.id > $after
RETURN m.user_id, m.id ORDER BY m.id LIMIT $limit
"""
OWNERS = """
MATCH (m:Memory)
WHERE ($ids IS NULL OR m.id IN $ids) AND ($user_id IS NULL OR m.user_id = $user_id)
  AND ($status IS NULL OR m.enrichment_status = $status)
RETURN m.user_id, m.id ORDER BY m.id LIMIT $limit
"""
COUNT_BY_STATUS = "MATCH (m:Memory) RETURN m.enrichment_status, count(m)"
COUNT_BY_STATUS_IN_SCOPE = f"MATCH (m:Memory) WHERE {IN_SCOPE} RETURN m.enrichment_status, count(m)"


async def write_enrichment(
    graph: GraphStore, user_id: str, rows: Sequence[dict[str, Any]], *, now: str
) -> tuple[list[Memory], list[str]]:
    """Writes derived fields and mentions; returns the memories written (others changed), and
    the other memories that lost an entity link to them (relinked content)."""
    result = await graph.query(
        WRITE_ENRICHMENT, {"rows": list(rows), "user_id": user_id, "now": now}
    )
    chained = sorted({memory_id for row in result for memory_id in row[1]})
    return [to_memory(row[0]) for row in result], chained


async def set_enrichment_status(
    graph: GraphStore, user_id: str, memory_ids: Sequence[str], status: str
) -> None:
    params = {"ids": list(memory_ids), "user_id": user_id, "status": status}
    await graph.query(SET_ENRICHMENT_STATUS, params)


async def link_similar(
    graph: GraphStore, user_id: str, pairs: Sequence[dict[str, Any]], *, now: str
) -> None:
    """SIMILAR_TO both ways for (a, b, score) pairs of the same owner."""
    if pairs:
        await graph.query(LINK_SIMILAR, {"pairs": list(pairs), "user_id": user_id, "now": now})


async def link_entity_predecessors(
    graph: GraphStore, user_id: str, memory_ids: Sequence[str], *, now: str
) -> int:
    """PRECEDED_BY to the latest earlier memory sharing each entity, and from the earliest later
    one (so the order memories are enriched in does not matter); returns links written."""
    params = {"ids": list(memory_ids), "user_id": user_id, "now": now}
    written = 0
    for query in (LINK_ENTITY_PREDECESSORS, LINK_ENTITY_SUCCESSORS):
        rows = await graph.query(query, params)
        written += int(rows[0][0]) if rows else 0
    return written


async def link_patterns(
    graph: GraphStore, user_id: str, memory_ids: Sequence[str], *, now: str, min_others: int = 3
) -> int:
    """EXEMPLIFIES to the owner's Pattern node of the memory's type, where one exists."""
    params = {"ids": list(memory_ids), "user_id": user_id, "now": now, "min_others": min_others}
    rows = await graph.query(LINK_PATTERNS, params)
    return int(rows[0][0]) if rows else 0


class EntityRecord(TypedDict):
    """An entity as GET /entities and GET /entity/{slug} report it."""

    category: str
    slug: str
    name: str
    aliases: list[str]
    created_at: str | None
    last_referenced_at: str | None
    id: str  # "<category>:<slug>"
    reference_count: int  # memories in the caller's scope that mention it
    memory_ids: NotRequired[list[str]]  # GET /entity/{slug} only


async def list_entities(
    graph: GraphStore, scope: Scope, *, category: str | None, limit: int
) -> list[EntityRecord]:
    """Entities mentioned by memories in scope, most referenced first."""
    params = {"category": category, "limit": limit, **scope_params(scope)}
    rows = await graph.ro_query(LIST_ENTITIES, params)
    return [_entity(row) for row in rows]


async def get_entity(
    graph: GraphStore, scope: Scope, slug: str, *, memory_limit: int = 50
) -> EntityRecord | None:
    """One entity by slug (or by one of its names), with the ids of memories mentioning it,
    newest first (at most `memory_limit`)."""
    params = {"slug": slug, "name": slug, "memory_limit": memory_limit, **scope_params(scope)}
    rows = await graph.ro_query(GET_ENTITY, params)
    if not rows:
        return None
    entity = _entity(rows[0][:-1])
    entity["memory_ids"] = rows[0][-1]
    return entity


def _entity(row: Sequence[Any]) -> EntityRecord:
    category, slug, name, aliases, created_at, last_referenced_at, references = row
    return {
        "category": category,
        "slug": slug,
        "name": name,
        "aliases": aliases,
        "created_at": created_at,
        "last_referenced_at": last_referenced_at,
        "id": f"{category}:{slug}",
        "reference_count": int(references),
    }


async def expand_by_entities(
    graph: GraphStore, scope: Scope, seeds: Sequence[str], *, limit: int
) -> list[tuple[str, str, Memory]]:
    """(seed id, entity id, memory) for memories in scope sharing an entity with a seed."""
    params = {"seeds": list(seeds), "limit": limit, **scope_params(scope)}
    rows = await graph.ro_rows(EXPAND_BY_ENTITIES, params)
    return [(row[0], row[1], memory_from_properties(row[2])) for row in rows]


async def unenriched(graph: GraphStore, *, after: str, limit: int) -> list[tuple[str, str]]:
    """(user_id, id) of embedded memories whose enrichment is pending, in id order."""
    rows = await graph.ro_query(UNENRICHED, {"after": after, "limit": limit})
    return [(row[0], row[1]) for row in rows]


async def owners(
    graph: GraphStore,
    *,
    ids: Sequence[str] | None,
    user_id: str | None,
    status: str | None,
    limit: int,
) -> list[tuple[str, str]]:
    """(user_id, id) of live memories by ids and/or filters (operator path)."""
    params = {"ids": list(ids) if ids else None, "user_id": user_id, "status": status}
    rows = await graph.ro_query(OWNERS, {**params, "limit": limit})
    return [(row[0], row[1]) for row in rows]


async def count_by_status(graph: GraphStore, scope: Scope | None) -> dict[str, int]:
    """How many memories are in each enrichment state: those `scope` sees, or every user's for
    None (the operator)."""
    if scope is None:
        rows = await graph.ro_query(COUNT_BY_STATUS)
    else:
        rows = await graph.ro_query(COUNT_BY_STATUS_IN_SCOPE, scope_params(scope))
    return {row[0]: int(row[1]) for row in rows}
