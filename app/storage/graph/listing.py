"""Cypher for GET /memory: the caller's memories page by page, in a chosen order, after a
position (keyset paging: a page never shifts when memories are written before it).

One query per sort key and direction: a property name cannot be a parameter, so each is spelled
out from the fixed set in SORT_KEYS; every value goes in as a $param.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.models import Memory
from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import memories_of, scope_params
from app.storage.graph.store import GraphStore

SortKey = Literal["created_at", "timestamp", "updated_at"]
Order = Literal["asc", "desc"]
State = Literal["current", "archived", "all"]
SORT_KEYS: tuple[SortKey, ...] = ("created_at", "timestamp", "updated_at")
ORDERS: tuple[Order, ...] = ("asc", "desc")

# current: what recall shows now (not archived, valid now, not expired); archived: only those;
# all: every live memory (deleted ones are history: GET /memory/{id}/history).
STATE_RULE = """($state = 'all'
  OR ($state = 'archived' AND coalesce(m.archived, false))
  OR ($state = 'current' AND NOT coalesce(m.archived, false)
      AND (m.t_valid IS NULL OR m.t_valid <= $now) AND (m.t_invalid IS NULL OR m.t_invalid > $now)
      AND (m.expires_at IS NULL OR m.expires_at > $now)))"""


# The operator's read-only look at one user's memories (GET /admin/users/{id}/memories): every
# agent's, which no caller's scope covers.
WHOLE_USER = "m.user_id = $user_id"
FILTERS = """
  AND (size($types) = 0 OR m.type IN $types)
  AND (size($layers) = 0 OR m.layer IN $layers)
  AND (size($tags) = 0 OR any(t IN m.tags WHERE toLower(t) IN $tags))
  AND all(k IN $label_keys WHERE m.labels CONTAINS k)
  AND ($since IS NULL OR m.timestamp >= $since) AND ($until IS NULL OR m.timestamp <= $until)
  AND ($text IS NULL OR toLower(m.content) CONTAINS $text)
  AND ($agent IS NULL OR m.agent_id = $agent)
  AND ($session IS NULL OR m.session_id = $session)"""


def _page_query(key: SortKey, order: Order, owner: str) -> str:
    after = ">" if order == "asc" else "<"
    return f"""
MATCH (m:Memory) WHERE {owner}{FILTERS}
  AND {STATE_RULE}
  AND ($after_value IS NULL OR m.{key} {after} $after_value
       OR (m.{key} = $after_value AND m.id {after} $after_id))
WITH m ORDER BY m.{key} {order.upper()}, m.id {order.upper()} LIMIT $limit
RETURN properties(m)
"""


def _count_query(owner: str) -> str:
    return f"MATCH (m:Memory) WHERE {owner}{FILTERS}\n  AND {STATE_RULE}\nRETURN count(m)"


PAGE_QUERIES = {
    (key, order): _page_query(key, order, IN_SCOPE) for key in SORT_KEYS for order in ORDERS
}
USER_PAGE_QUERIES = {
    (key, order): _page_query(key, order, WHOLE_USER) for key in SORT_KEYS for order in ORDERS
}
COUNT = _count_query(IN_SCOPE)
USER_COUNT = _count_query(WHOLE_USER)


@dataclass(frozen=True)
class ListQuery:
    """Which memories GET /memory lists, and in what order."""

    now: str
    sort: SortKey = "created_at"
    order: Order = "desc"
    state: State = "current"
    types: Sequence[str] = ()
    layers: Sequence[str] = ()
    tags: Sequence[str] = ()  # any of them, exact and case-insensitive (as /memory/by-tag)
    label_keys: Sequence[str] = ()  # each must be a key of the labels (values: checked by caller)
    since: str | None = None
    until: str | None = None
    text: str | None = None  # a part of the content, case-insensitive
    agent: str | None = None  # the agent that wrote it, exactly (within the scope)
    session: str | None = None  # the conversation it came from


@dataclass(frozen=True)
class Position:
    """Where a page ends: the last memory's sort value and id."""

    value: str
    memory_id: str


def position_of(memory: Memory, key: SortKey) -> Position:
    return Position(getattr(memory, key), memory.id)


def label_key_fragment(key: str) -> str:
    """How a label key appears in the stored labels JSON (records.memory_to_properties): a
    match is necessary, not sufficient (the same text may sit inside a value)."""
    return json.dumps(key) + ":"


def _filter_params(query: ListQuery) -> dict[str, object]:
    return {
        "now": query.now,
        "state": query.state,
        "types": list(query.types),
        "layers": list(query.layers),
        "tags": [t.lower() for t in query.tags],
        "label_keys": [label_key_fragment(k) for k in query.label_keys],
        "since": query.since,
        "until": query.until,
        "text": query.text.lower() if query.text else None,
        "agent": query.agent,
        "session": query.session,
    }


async def page(
    graph: GraphStore,
    scope: Scope,
    query: ListQuery,
    *,
    after: Position | None,
    limit: int,
    whole_user: bool = False,
) -> list[Memory]:
    """Up to `limit` memories of the scope that `query` lets through, after `after`;
    `whole_user`: of every agent of the scope's user (the operator's look)."""
    params = {
        **_filter_params(query),
        "after_value": after.value if after else None,
        "after_id": after.memory_id if after else None,
        "limit": limit,
        **scope_params(scope),
    }
    queries = USER_PAGE_QUERIES if whole_user else PAGE_QUERIES
    rows = await graph.ro_rows(queries[(query.sort, query.order)], params)
    return memories_of(rows)


async def count(graph: GraphStore, scope: Scope, query: ListQuery, *, whole_user: bool) -> int:
    """How many memories `query` lets through in all (label values are not compared)."""
    params = {**_filter_params(query), **scope_params(scope)}
    rows = await graph.ro_rows(USER_COUNT if whole_user else COUNT, params)
    return int(rows[0][0]) if rows else 0
