"""Cypher for a user's own settings: one `(:UserSettings {user_id})` node per user, made on
the first change. Absent settings take their defaults (Personal Intelligence on)."""

from typing import Any, TypedDict

from app.storage.graph import settings_cache
from app.storage.graph.store import GraphStore

DEFAULTS: dict[str, Any] = {"personal_intelligence": True}

USER_SETTINGS = """
MATCH (u:UserSettings {user_id: $user_id})
RETURN u.personal_intelligence, u.updated_at
"""
SET_PERSONAL_INTELLIGENCE = """
MERGE (u:UserSettings {user_id: $user_id})
SET u.personal_intelligence = $personal_intelligence, u.updated_at = $now
RETURN u.personal_intelligence, u.updated_at
"""


class UserSettings(TypedDict):
    """A user's settings as GET/PUT /me/settings report them."""

    personal_intelligence: bool
    updated_at: str | None  # None until the first change


async def user_settings(graph: GraphStore, user_id: str) -> UserSettings:
    """The user's settings, defaults filled in (`updated_at` null until the first change)."""
    rows = await graph.ro_query(USER_SETTINGS, {"user_id": user_id})
    return _settings(rows[0] if rows else [None, None])


async def personal_intelligence(graph: GraphStore, user_id: str) -> bool:
    """The user's switch, as recall reads it: cached for a second (settings_cache.py)."""

    async def read() -> bool:
        return bool((await user_settings(graph, user_id))["personal_intelligence"])

    return await settings_cache.cached(graph, user_id, read)


async def set_personal_intelligence(
    graph: GraphStore, user_id: str, enabled: bool, now: str
) -> UserSettings:
    params = {"user_id": user_id, "personal_intelligence": enabled, "now": now}
    try:
        return _settings((await graph.query(SET_PERSONAL_INTELLIGENCE, params))[0])
    finally:  # also after a failure: the write may have been applied
        settings_cache.forget(graph, user_id)


def _settings(row: list[Any]) -> UserSettings:
    personal_intelligence, updated_at = row
    if personal_intelligence is None:
        personal_intelligence = DEFAULTS["personal_intelligence"]
    return {"personal_intelligence": bool(personal_intelligence), "updated_at": updated_at}
