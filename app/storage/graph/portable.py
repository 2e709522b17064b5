"""Cypher for export and import: memories with their revisions, links and entity mentions,
read and written by id (operator paths, any user; the caller decides whose)."""

from collections.abc import Sequence
from typing import Any, TypedDict

from app.models import MemoryProps
from app.storage.graph.store import GraphStore

REVISIONS = "MATCH (r:Revision) WHERE r.memory_id IN $ids RETURN r.memory_id, properties(r)"
LINKS = """
MATCH (a:Memory)-[r]->(b:Memory) WHERE a.id IN $ids
RETURN a.id, type(r), b.id, properties(r)
"""
MENTIONS = """
MATCH (a:Memory)-[:MENTIONS]->(x:Entity) WHERE a.id IN $ids
RETURN a.id, x.category, x.slug, x.name, x.aliases, x.created_at, x.last_referenced_at
"""
SAME_CONTENT = """
UNWIND $rows AS row
MATCH (m:Memory {content_hash: row.hash}) WHERE m.user_id = row.user_id
RETURN DISTINCT row.id
"""
CREATE = """
UNWIND $rows AS row
CREATE (m:Memory) SET m = row
CREATE (:AuditEvent {id: row.id + ':' + $action, memory_id: row.id, user_id: row.user_id,
        agent_id: row.agent_id, actor: $actor, action: $action, version: row.version,
        at: $now})
"""
CREATE_REVISIONS = "UNWIND $rows AS row CREATE (r:Revision) SET r = row"
LINK = """
UNWIND $rows AS row
MATCH (a:Memory {id: row.src}), (b:Memory {id: row.dst})
WHERE a.user_id = b.user_id
MERGE (a)-[r:{type}]->(b) SET r += row.properties
RETURN row.src, row.dst
"""
MENTION = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
MERGE (x:Entity {user_id: m.user_id, category: row.category, slug: row.slug})
ON CREATE SET x.name = row.name, x.aliases = coalesce(row.aliases, [row.name]),
    x.created_at = coalesce(row.created_at, $now),
    x.last_referenced_at = coalesce(row.last_referenced_at, $now)
MERGE (m)-[:MENTIONS]->(x)
"""


class ExportedLink(TypedDict):
    """A link from an exported memory to another memory."""

    type: str
    target: str
    properties: dict[str, Any]


class ExportedEntity(TypedDict):
    """An entity an exported memory mentions."""

    category: str
    slug: str
    name: str
    aliases: list[str]
    created_at: str | None
    last_referenced_at: str | None


async def revisions(graph: GraphStore, ids: Sequence[str]) -> dict[str, list[MemoryProps]]:
    found: dict[str, list[MemoryProps]] = {}
    for memory_id, props in await graph.ro_rows(REVISIONS, {"ids": list(ids)}):
        found.setdefault(memory_id, []).append(props)
    for states in found.values():
        states.sort(key=lambda r: r.get("version", 0))
    return found


async def links(graph: GraphStore, ids: Sequence[str]) -> dict[str, list[ExportedLink]]:
    found: dict[str, list[ExportedLink]] = {}
    for src, kind, dst, props in await graph.ro_rows(LINKS, {"ids": list(ids)}):
        found.setdefault(src, []).append({"type": kind, "target": dst, "properties": props})
    return found


async def mentions(graph: GraphStore, ids: Sequence[str]) -> dict[str, list[ExportedEntity]]:
    found: dict[str, list[ExportedEntity]] = {}
    rows = await graph.ro_rows(MENTIONS, {"ids": list(ids)})
    for memory_id, category, slug, name, aliases, created, referenced in rows:
        found.setdefault(memory_id, []).append(
            {
                "category": category,
                "slug": slug,
                "name": name,
                "aliases": aliases,
                "created_at": created,
                "last_referenced_at": referenced,
            }
        )
    return found


async def with_same_content(graph: GraphStore, rows: Sequence[dict[str, str]]) -> set[str]:
    """Ids of rows ({id, user_id, hash}) whose owner already has a memory with that content."""
    return {row[0] for row in await graph.ro_query(SAME_CONTENT, {"rows": list(rows)})}


async def create(
    graph: GraphStore,
    memories: Sequence[dict[str, Any]],
    *,
    actor: str,
    now: str,
    action: str = "import",
) -> None:
    """Creates memories from their properties, each with an audit event `action`."""
    params = {"rows": list(memories), "actor": actor, "now": now, "action": action}
    await graph.query(CREATE, params)


async def create_revisions(graph: GraphStore, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        await graph.query(CREATE_REVISIONS, {"rows": list(rows)})


async def link(graph: GraphStore, kind: str, rows: Sequence[dict[str, Any]]) -> int:
    """Links {src, dst, properties} between memories of one owner; returns how many were made."""
    if not kind.isidentifier():
        raise ValueError(f"not a plain identifier: {kind!r}")
    made = await graph.query(LINK.replace("{type}", kind), {"rows": list(rows)})
    return len(made)


async def mention(graph: GraphStore, rows: Sequence[dict[str, Any]], *, now: str) -> None:
    if rows:
        await graph.query(MENTION, {"rows": list(rows), "now": now})
