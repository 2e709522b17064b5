"""Cypher for webhook targets: `(:WebhookTarget {id, user_id | all_users, url, secret, events,
created_at, description})`.

The secret is stored as given, not hashed: every delivery is signed with it (an HMAC needs the
key itself). So the graph, and every backup of it, holds the secrets: see docs/api.md.
"""

from dataclasses import dataclass
from typing import Any

from app.storage.graph.store import GraphStore

CREATE_TARGET = """
CREATE (t:WebhookTarget {id: $id, url: $url, secret: $secret, events: $events,
                         created_at: $now, description: $description, all_users: $all_users})
SET t.user_id = $user_id
RETURN t.id
"""
COUNT_TARGETS = """
MATCH (t:WebhookTarget)
WHERE ($user_id IS NULL AND t.all_users = true) OR t.user_id = $user_id
RETURN count(t)
"""
LIST_TARGETS = """
MATCH (t:WebhookTarget)
WHERE $user_id IS NULL OR t.user_id = $user_id
RETURN properties(t) ORDER BY t.created_at, t.id
"""
# The targets an event of this user goes to: the user's own and those for every user.
TARGETS_OF_USER = """
MATCH (t:WebhookTarget)
WHERE (t.user_id = $user_id OR t.all_users = true) AND $event IN t.events
RETURN t.id
"""
GET_TARGET = """
MATCH (t:WebhookTarget {id: $id})
RETURN properties(t)
"""
DELETE_TARGET = """
MATCH (t:WebhookTarget {id: $id})
DELETE t
RETURN count(*)
"""


@dataclass(frozen=True)
class Target:
    id: str
    url: str
    secret: str
    events: list[str]
    user_id: str | None  # None: every user's events
    created_at: str
    description: str | None = None


def _target(props: dict[str, Any]) -> Target:
    return Target(
        id=props["id"],
        url=props["url"],
        secret=props["secret"],
        events=list(props.get("events") or []),
        user_id=None if props.get("all_users") else props.get("user_id"),
        created_at=props["created_at"],
        description=props.get("description"),
    )


async def create_target(graph: GraphStore, target: Target) -> None:
    params = {
        "id": target.id,
        "url": target.url,
        "secret": target.secret,
        "events": target.events,
        "now": target.created_at,
        "description": target.description,
        "all_users": target.user_id is None,
        "user_id": target.user_id,
    }
    await graph.query(CREATE_TARGET, params)


async def count_targets(graph: GraphStore, user_id: str | None) -> int:
    """Targets registered for this user (None: those for every user)."""
    rows = await graph.ro_query(COUNT_TARGETS, {"user_id": user_id})
    return int(rows[0][0]) if rows else 0


async def list_targets(graph: GraphStore, user_id: str | None = None) -> list[Target]:
    """Every target, or those registered for one user."""
    rows = await graph.ro_query(LIST_TARGETS, {"user_id": user_id})
    return [_target(row[0]) for row in rows]


async def targets_for(graph: GraphStore, user_id: str, event: str) -> list[str]:
    """The ids of the targets that take this event of this user."""
    rows = await graph.ro_query(TARGETS_OF_USER, {"user_id": user_id, "event": event})
    return [row[0] for row in rows]


async def get_target(graph: GraphStore, target_id: str) -> Target | None:
    rows = await graph.ro_query(GET_TARGET, {"id": target_id})
    return _target(rows[0][0]) if rows else None


async def delete_target(graph: GraphStore, target_id: str) -> bool:
    rows = await graph.query(DELETE_TARGET, {"id": target_id})
    return bool(rows and rows[0][0])
