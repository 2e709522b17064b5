"""Memory as a whole, for the console: counts over your scope (GET /me/stats), your
conversations (GET /me/sessions), a picture of your memories, entities and links (GET
/me/graph); and the operator's view (admin key): the users (GET /admin/users) and one user's
memory, read-only (GET /admin/users/{user_id}/stats and …/memories), each look written to the
audit log.

A user's reads carry the caller's scope (user and agent) inside their Cypher; the operator's
reads of one user cover every agent of that user.
"""

from datetime import timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from app.deps import AdminDep, ConfiguredKeysDep, ScopeDep, StoresDep
from app.memories.listing_page import ListFiltersDep, ListResponse, list_page
from app.models import to_iso, utc_now
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import api_keys, overview
from app.validation import MAX_USER_ID_CHARS, USER_ID_PATTERN

router = APIRouter(tags=["overview"])

MAX_DAYS = 366
MAX_TAGS = 50
MAX_SESSIONS = 200
MAX_GRAPH = 300
MAX_USERS = 1000
UserIdPath = Annotated[
    str, Path(max_length=MAX_USER_ID_CHARS, pattern=USER_ID_PATTERN, description="The user.")
]


class DayCount(BaseModel):
    day: str = Field(description="A UTC day, YYYY-MM-DD.")
    count: int = Field(description="Memories created that day (still held).")


class Storage(BaseModel):
    memories: int = Field(description="Memories held (archived included).")
    content_chars: int = Field(description="Characters of their content.")
    revisions: int = Field(description="Earlier versions kept.")
    deleted: int = Field(description="Tombstones of deleted memories.")
    entities: int = Field(description="Entities the memories mention.")
    sessions: int = Field(description="Conversations the memories came from.")


class Stats(BaseModel):
    status: Literal["success"] = "success"
    user_id: str = Field(description="Whose memories these are.")
    agent_id: str | None = Field(description="The agent scope counted (null: shared only).")
    total: int = Field(description="Memories held, archived included.")
    archived: int = Field(description="Archived memories.")
    pinned: int = Field(description="Pinned memories.")
    last_write: str | None = Field(description="The latest create or update.")
    by_type: dict[str, int] = Field(description="Memories per type.")
    by_layer: dict[str, int] = Field(description="Memories per layer.")
    by_role: dict[str, int] = Field(description="Memories per role.")
    by_agent: dict[str, int] = Field(description="Memories per agent ('(shared)': none).")
    by_tag: dict[str, int] = Field(description="The most used tags, with their memories.")
    per_day: list[DayCount] = Field(description="Memories created per day, oldest first.")
    storage: Storage = Field(description="What the memories take and hold around them.")


class SessionRow(BaseModel):
    session_id: str = Field(description="The conversation.")
    turns: int = Field(description="Transcript turns held.")
    facts: int = Field(description="Other memories drawn from it.")
    first: str | None = Field(description="Its earliest memory's timestamp.")
    last: str | None = Field(description="Its latest memory's timestamp.")


class SessionList(BaseModel):
    status: Literal["success"] = "success"
    sessions: list[SessionRow] = Field(description="Latest first.")


class GraphNode(BaseModel):
    id: str = Field(description="A memory id, or 'entity:…' for an entity.")
    kind: Literal["memory", "entity"] = Field(description="What the node is.")
    label: str = Field(description="The memory's content or the entity's name.")
    type: str = Field(description="The memory's type or the entity's category.")
    pinned: bool = Field(False, description="A pinned memory.")
    slug: str | None = Field(None, description="An entity's slug (GET /entity/{slug}).")


class GraphEdge(BaseModel):
    source: str = Field(description="From this node.")
    target: str = Field(description="To this node.")
    type: str = Field(description="The relationship (MENTIONS: a memory names an entity).")


class GraphPicture(BaseModel):
    status: Literal["success"] = "success"
    nodes: list[GraphNode] = Field(description="The newest memories and their entities.")
    edges: list[GraphEdge] = Field(description="Typed links among them.")


class KeyRow(BaseModel):
    key_id: str = Field(description="The key's id (never the key).")
    source: Literal["configured", "runtime"] = Field(description="Where the key is kept.")
    agent_prefix: str | None = Field(None, description="The agent the key is bound to.")
    revoked_at: str | None = Field(None, description="When it was revoked.")
    last_used_at: str | None = Field(None, description="When it was last used (runtime keys).")


class UserRow(BaseModel):
    user_id: str = Field(description="The user.")
    memories: int = Field(description="Memories held, archived included.")
    archived: int = Field(description="Archived memories.")
    pinned: int = Field(description="Pinned memories.")
    last_write: str | None = Field(description="The latest create or update.")
    keys: list[KeyRow] = Field(description="The user's keys.")


class UserList(BaseModel):
    status: Literal["success"] = "success"
    users: list[UserRow] = Field(description="By user id.")
    disk: dict[str, int] = Field(
        description="Bytes each embedded store keeps in ENGRAM_DATA_DIR (falkordb, qdrant, "
        "artifacts); empty when the stores are servers of their own."
    )


async def _stats(stores: Stores, scope: Scope, days: int, *, whole_user: bool) -> Stats:
    graph = stores.graph
    since = to_iso(utc_now() - timedelta(days=days - 1))[:10]
    counted = await overview.breakdown(graph, scope, whole_user=whole_user)
    tags = await overview.tag_counts(graph, scope, limit=MAX_TAGS, whole_user=whole_user)
    daily = await overview.per_day(graph, scope, since=since, whole_user=whole_user)
    held = await overview.around(graph, scope, whole_user=whole_user)
    return Stats(
        user_id=scope.user_id,
        agent_id=None if whole_user else scope.agent_id,
        total=counted.total,
        archived=counted.archived,
        pinned=counted.pinned,
        last_write=counted.last_write,
        by_type=counted.by_type,
        by_layer=counted.by_layer,
        by_role=counted.by_role,
        by_agent=counted.by_agent,
        by_tag=tags,
        per_day=[DayCount(day=day, count=count) for day, count in daily.items()],
        storage=Storage(
            memories=counted.total,
            content_chars=counted.content_chars,
            revisions=held.get("revisions", 0),
            deleted=held.get("deleted", 0),
            entities=held.get("entities", 0),
            sessions=held.get("sessions", 0),
        ),
    )


Days = Annotated[int, Query(ge=1, le=MAX_DAYS, description="Days of `per_day`, up to today.")]


@router.get("/me/stats", response_model=Stats)
async def my_stats(stores: StoresDep, scope: ScopeDep, days: Days = 30) -> Stats:
    """Your memories counted (in your scope: your user, and the agent you act as): by type,
    layer, role, agent and tag; created per day; what they take and hold around them."""
    return await _stats(stores, scope, days, whole_user=False)


@router.get("/me/sessions", response_model=SessionList)
async def my_sessions(
    stores: StoresDep,
    scope: ScopeDep,
    limit: Annotated[int, Query(ge=1, le=MAX_SESSIONS, description="Sessions, 1–200.")] = 50,
) -> SessionList:
    """The conversations your memories came from, latest first, with their turns and facts
    counted; read one with GET /sessions/{id}/messages and GET /memory?session={id}."""
    found = await overview.sessions(stores.graph, scope, limit=limit)
    return SessionList(sessions=[SessionRow(**vars(row)) for row in found])


@router.get("/me/graph", response_model=GraphPicture)
async def my_graph(
    stores: StoresDep,
    scope: ScopeDep,
    limit: Annotated[int, Query(ge=1, le=MAX_GRAPH, description="Memories, 1–300.")] = 100,
) -> GraphPicture:
    """Your newest memories (not archived, not transcript turns), the typed links among them
    and the entities they mention: a picture to draw."""
    drawn = await overview.picture(stores.graph, scope, limit=limit)
    return GraphPicture(
        nodes=[GraphNode(**node) for node in drawn.nodes],
        edges=[GraphEdge(**edge) for edge in drawn.edges],
    )


async def _look(stores: Stores, admin: AdminDep, user_id: str | None, what: str) -> None:
    await overview.record_look(
        stores.graph, actor=admin.actor, user_id=user_id, what=what, now=to_iso(utc_now())
    )


def _configured_keys(configured: ConfiguredKeysDep) -> dict[str, list[KeyRow]]:
    held: dict[str, list[KeyRow]] = {}
    for principal in configured:
        if principal.user_id is not None:
            row = KeyRow(
                key_id=principal.key_id, source="configured", agent_prefix=principal.agent_prefix
            )
            held.setdefault(principal.user_id, []).append(row)
    return held


async def _runtime_keys(stores: Stores) -> dict[str, list[KeyRow]]:
    held: dict[str, list[KeyRow]] = {}
    records = await api_keys.list_keys(
        stores.graph, user_id=None, include_revoked=True, cursor=None, limit=MAX_USERS * 10
    )
    for record in records:
        row = KeyRow(
            key_id=record.key_id,
            source="runtime",
            agent_prefix=record.agent_prefix,
            revoked_at=record.revoked_at,
            last_used_at=record.last_used_at,
        )
        held.setdefault(record.user_id, []).append(row)
    return held


@router.get("/admin/users", response_model=UserList)
async def list_users(stores: StoresDep, admin: AdminDep, configured: ConfiguredKeysDep) -> UserList:
    """Every user with memories or keys: memory counts, last write, and their keys (ids, never
    the keys); and what the embedded stores take on disk. The look is written to the audit
    log."""
    found = {row.user_id: row for row in await overview.users(stores.graph, limit=MAX_USERS)}
    keys = _configured_keys(configured)
    for user_id, rows in (await _runtime_keys(stores)).items():
        keys.setdefault(user_id, []).extend(rows)
    for user_id in keys:
        found.setdefault(user_id, overview.UserSummary(user_id, 0, 0, 0, None))
    await _look(stores, admin, None, "users")
    return UserList(
        users=[
            UserRow(**vars(found[user_id]), keys=keys.get(user_id, []))
            for user_id in sorted(found)[:MAX_USERS]
        ],
        disk=await overview.disk_usage(stores.data_dir),
    )


@router.get("/admin/users/{user_id}/stats", response_model=Stats)
async def user_stats(
    stores: StoresDep, admin: AdminDep, user_id: UserIdPath, days: Days = 30
) -> Stats:
    """One user's memories counted, every agent's (read-only; the look is audited)."""
    await _look(stores, admin, user_id, "stats")
    return await _stats(stores, Scope(user_id), days, whole_user=True)


@router.get("/admin/users/{user_id}/memories", response_model=ListResponse)
async def user_memories(
    stores: StoresDep, admin: AdminDep, user_id: UserIdPath, filters: ListFiltersDep
) -> ListResponse:
    """One user's memories, every agent's, with GET /memory's filters and paging (read-only;
    each look is audited)."""
    await _look(stores, admin, user_id, "memories")
    return await list_page(stores, Scope(user_id), filters, whole_user=True)
