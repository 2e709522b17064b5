"""Cypher for looking after memory as a whole: counts over a scope (GET /me/stats), the
conversations it holds, a picture of its memories, entities and links (GET /me/graph), and the
operator's list of users (GET /admin/users).

Every read that a user makes carries the scope predicate inside the query (IN_SCOPE); the
operator's reads of one user take WHOLE_USER (every agent's memories of that user) and are
audited by the caller (`record_look`).
"""

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict
from uuid import uuid4

from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE, scope_predicate
from app.storage.graph.listing import WHOLE_USER
from app.storage.graph.records import scope_params
from app.storage.graph.store import GraphStore


def _owner(whole_user: bool) -> str:
    return WHOLE_USER if whole_user else IN_SCOPE


def _breakdown(owner: str) -> str:
    return f"""
MATCH (m:Memory) WHERE {owner}
RETURN m.type, m.layer, m.role, m.agent_id, coalesce(m.archived, false), coalesce(m.pinned, false),
       count(m), sum(size(m.content)), max(m.updated_at)
"""


def _tags(owner: str) -> str:
    return f"""
MATCH (m:Memory) WHERE {owner}
UNWIND m.tags AS tag
WITH toLower(tag) AS tag, count(m) AS memories
RETURN tag, memories ORDER BY memories DESC, tag LIMIT $limit
"""


def _per_day(owner: str) -> str:
    return f"""
MATCH (m:Memory) WHERE {owner} AND m.created_at >= $since
RETURN substring(m.created_at, 0, 10) AS day, count(m) ORDER BY day
"""


def _around(whole_user: bool) -> str:
    # Revisions and tombstones keep their memory's scope fields; entities are reached through
    # the memories that mention them, sessions through their turns.
    owner = _owner(whole_user)
    history_owner = "x.user_id = $user_id" if whole_user else scope_predicate("x")
    return f"""
MATCH (x:Revision) WHERE {history_owner} RETURN 'revisions' AS what, count(x) AS n
UNION ALL
MATCH (x:Tombstone) WHERE {history_owner} RETURN 'deleted' AS what, count(x) AS n
UNION ALL
MATCH (m:Memory)-[:MENTIONS]->(e:Entity) WHERE {owner}
RETURN 'entities' AS what, count(DISTINCT e) AS n
UNION ALL
MATCH (m:Memory) WHERE {owner} AND m.session_id IS NOT NULL
RETURN 'sessions' AS what, count(DISTINCT m.session_id) AS n
"""


def _sessions(owner: str) -> str:
    return f"""
MATCH (m:Memory) WHERE {owner} AND m.session_id IS NOT NULL
WITH m.session_id AS session, m
RETURN session, sum(CASE WHEN m.layer = 'transcript' THEN 1 ELSE 0 END) AS turns,
       sum(CASE WHEN m.layer = 'transcript' THEN 0 ELSE 1 END) AS facts,
       min(m.timestamp) AS first, max(m.timestamp) AS last
ORDER BY last DESC LIMIT $limit
"""


BREAKDOWN = {whole: _breakdown(_owner(whole)) for whole in (False, True)}
TAGS = {whole: _tags(_owner(whole)) for whole in (False, True)}
PER_DAY = {whole: _per_day(_owner(whole)) for whole in (False, True)}
AROUND = {whole: _around(whole) for whole in (False, True)}
SESSIONS = {whole: _sessions(_owner(whole)) for whole in (False, True)}

# The graph picture: the newest memories of the scope (not transcript turns), the typed links
# between them, and the entities they mention.
GRAPH_MEMORIES = f"""
MATCH (m:Memory) WHERE {IN_SCOPE} AND m.layer <> 'transcript' AND NOT coalesce(m.archived, false)
WITH m ORDER BY m.created_at DESC LIMIT $limit
RETURN m.id, m.content, m.type, coalesce(m.pinned, false)
"""
GRAPH_LINKS = f"""
MATCH (a:Memory)-[r]->(b:Memory) WHERE a.id IN $ids AND b.id IN $ids
  AND {scope_predicate("a")} AND {scope_predicate("b")}
RETURN a.id, b.id, type(r)
"""
GRAPH_ENTITIES = f"""
MATCH (m:Memory)-[:MENTIONS]->(e:Entity) WHERE m.id IN $ids AND {IN_SCOPE}
  AND e.user_id = $user_id
RETURN m.id, e.user_id + ':' + e.category + ':' + e.slug, coalesce(e.name, e.slug), e.category,
       e.slug
"""

USERS = """
MATCH (m:Memory)
WITH m.user_id AS user_id, m
RETURN user_id, count(m), sum(CASE WHEN coalesce(m.archived, false) THEN 1 ELSE 0 END),
       sum(CASE WHEN coalesce(m.pinned, false) THEN 1 ELSE 0 END), max(m.updated_at)
ORDER BY user_id LIMIT $limit
"""
KEY_HOLDERS = """
MATCH (k:ApiKey) WHERE k.user_id IS NOT NULL RETURN DISTINCT k.user_id LIMIT $limit
"""
# An operator's look at users' memory, in the audit log next to the writes.
RECORD_LOOK = """
CREATE (:AuditEvent {id: $id, memory_id: null, user_id: $user_id, actor: $actor,
        action: 'admin_view', what: $what, at: $now})
"""


@dataclass
class Breakdown:
    """A scope's memories counted by each facet."""

    total: int = 0
    archived: int = 0
    pinned: int = 0
    content_chars: int = 0
    last_write: str | None = None
    by_type: dict[str, int] = field(default_factory=dict)
    by_layer: dict[str, int] = field(default_factory=dict)
    by_role: dict[str, int] = field(default_factory=dict)
    by_agent: dict[str, int] = field(default_factory=dict)

    def add(self, row: list[Any]) -> None:
        kind, layer, role, agent, archived, pinned, count, chars, last = row
        self.total += count
        self.archived += count if archived else 0
        self.pinned += count if pinned else 0
        self.content_chars += chars or 0
        if last and (self.last_write is None or last > self.last_write):
            self.last_write = last
        for facet, value in (
            (self.by_type, kind),
            (self.by_layer, layer),
            (self.by_role, role),
            (self.by_agent, agent or "(shared)"),
        ):
            facet[str(value)] = facet.get(str(value), 0) + count


async def breakdown(graph: GraphStore, scope: Scope, *, whole_user: bool = False) -> Breakdown:
    counted = Breakdown()
    for row in await graph.ro_rows(BREAKDOWN[whole_user], scope_params(scope)):
        counted.add(row)
    return counted


async def tag_counts(
    graph: GraphStore, scope: Scope, *, limit: int, whole_user: bool = False
) -> dict[str, int]:
    rows = await graph.ro_rows(TAGS[whole_user], {"limit": limit, **scope_params(scope)})
    return {row[0]: row[1] for row in rows}


async def per_day(
    graph: GraphStore, scope: Scope, *, since: str, whole_user: bool = False
) -> dict[str, int]:
    rows = await graph.ro_rows(PER_DAY[whole_user], {"since": since, **scope_params(scope)})
    return {row[0]: row[1] for row in rows}


async def around(graph: GraphStore, scope: Scope, *, whole_user: bool = False) -> dict[str, int]:
    """What the scope's memories hold besides themselves: revisions, deletions, entities,
    sessions."""
    rows = await graph.ro_rows(AROUND[whole_user], scope_params(scope))
    return {row[0]: row[1] for row in rows}


@dataclass(frozen=True)
class SessionSummary:
    session_id: str
    turns: int
    facts: int
    first: str | None
    last: str | None


async def sessions(
    graph: GraphStore, scope: Scope, *, limit: int, whole_user: bool = False
) -> list[SessionSummary]:
    rows = await graph.ro_rows(SESSIONS[whole_user], {"limit": limit, **scope_params(scope)})
    return [SessionSummary(*row) for row in rows]


class PictureNode(TypedDict):
    """A memory or an entity of the picture."""

    id: str  # a memory id, or "entity:<key>"
    kind: Literal["memory", "entity"]
    label: str  # the memory's content or the entity's name
    type: str  # the memory's type or the entity's category
    pinned: NotRequired[bool]  # memories only
    slug: NotRequired[str]  # entities only


class PictureEdge(TypedDict):
    """A typed link of the picture (MENTIONS from a memory to an entity)."""

    source: str
    target: str
    type: str


@dataclass
class Picture:
    """Memories, entities and the typed links between them."""

    nodes: list[PictureNode] = field(default_factory=list)
    edges: list[PictureEdge] = field(default_factory=list)


async def picture(graph: GraphStore, scope: Scope, *, limit: int) -> Picture:
    drawn = Picture()
    params = {"limit": limit, **scope_params(scope)}
    for memory_id, content, kind, pinned in await graph.ro_rows(GRAPH_MEMORIES, params):
        drawn.nodes.append(
            {"id": memory_id, "kind": "memory", "label": content, "type": kind, "pinned": pinned}
        )
    ids = [node["id"] for node in drawn.nodes]
    if not ids:
        return drawn
    linked = {"ids": ids, **scope_params(scope)}
    for source, target, relation in await graph.ro_rows(GRAPH_LINKS, linked):
        drawn.edges.append({"source": source, "target": target, "type": relation})
    entities: set[str] = set()
    for memory_id, key, name, category, slug in await graph.ro_rows(GRAPH_ENTITIES, linked):
        node_id = f"entity:{key}"
        if node_id not in entities:
            entities.add(node_id)
            drawn.nodes.append(
                {"id": node_id, "kind": "entity", "label": name, "type": category, "slug": slug}
            )
        drawn.edges.append({"source": memory_id, "target": node_id, "type": "MENTIONS"})
    return drawn


@dataclass(frozen=True)
class UserSummary:
    user_id: str
    memories: int
    archived: int
    pinned: int
    last_write: str | None


async def users(graph: GraphStore, *, limit: int) -> list[UserSummary]:
    """Every user holding memories, and those holding only runtime keys, by id."""
    found = {
        row[0]: UserSummary(*row) for row in await graph.ro_rows(USERS, {"limit": limit}) if row[0]
    }
    for (user_id,) in await graph.ro_rows(KEY_HOLDERS, {"limit": limit}):
        found.setdefault(user_id, UserSummary(user_id, 0, 0, 0, None))
    return [found[user_id] for user_id in sorted(found)][:limit]


async def record_look(
    graph: GraphStore, *, actor: str, user_id: str | None, what: str, now: str
) -> None:
    """Writes the operator's look into the audit log (an `admin_view` event)."""
    params = {"id": f"look:{uuid4()}", "actor": actor, "user_id": user_id, "what": what}
    params["now"] = now
    await graph.query(RECORD_LOOK, params)


# The embedded stores' folders under ENGRAM_DATA_DIR (app/runtime.py,
# app/storage/artifacts/backends.py).
STORE_FOLDERS = ("falkordb", "qdrant", "artifacts")


def _bytes_below(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file() and not path.is_symlink():
                # Blocks in use, not the apparent size: the vector store preallocates sparse files.
                total += path.stat().st_blocks * 512
        except OSError:  # a file removed while it was walked
            continue
    return total


async def disk_usage(data_dir: Path | None) -> dict[str, int]:
    """Bytes each embedded store keeps on disk (none for stores on other servers)."""
    if data_dir is None:
        return {}
    folders = [data_dir / name for name in STORE_FOLDERS if (data_dir / name).is_dir()]
    sizes = await asyncio.gather(*(asyncio.to_thread(_bytes_below, f) for f in folders))
    return {folder.name: size for folder, size in zip(folders, sizes, strict=True)}
