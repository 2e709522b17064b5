"""Memoria's tiers on the read side: what a recall may show of the user's memories.

- **MemoryLess.** A request with `memoryless=true`, or naming a session made memoryless
  (PUT /sessions/{id}), reads nothing personal: recall answers empty and says why
  (`memoryless: true`); nothing is reinforced and nothing of it is logged.
- **Personal Intelligence** (GET/PUT /me/settings, on by default). Off, recall shows only the
  current session's memories (the request's `session_id`) and pinned ones. The hits are
  filtered after the search, so a recall may return fewer than `limit`.

The switch is cached for a second per graph (app/storage/graph/settings_cache.py): a change applies
to the next request of the process that made it (the change drops the cached entry before it
answers) and within a second to every other API process.
"""

from dataclasses import dataclass
from typing import TypedDict

from app.models import Memory
from app.recall.outcome import RecallOutcome
from app.scope import Scope
from app.storage.graph import sessions, user_settings
from app.storage.graph.store import GraphStore


class TierFields(TypedDict, total=False):
    """What a recall's response says of a tier that shows less than everything."""

    memoryless: bool
    personal_intelligence: bool
    session_id: str | None


@dataclass(frozen=True)
class Tier:
    """What one request may read."""

    session_id: str | None = None
    memoryless: bool = False
    personal_intelligence: bool = True

    def shows(self, memory: Memory) -> bool:
        """Everything with Personal Intelligence on; with it off, the current session's
        memories and pinned ones."""
        if self.personal_intelligence or memory.pinned:
            return True
        return self.session_id is not None and memory.session_id == self.session_id

    def described(self) -> TierFields:
        """The response fields that tell a client why it got less (none in the default tier)."""
        if self.memoryless:
            return {"memoryless": True}
        if not self.personal_intelligence:
            return {"personal_intelligence": False, "session_id": self.session_id}
        return {}


async def tier_of(
    graph: GraphStore, scope: Scope, *, session_id: str | None, memoryless: bool
) -> Tier:
    """The request's tier: memoryless if asked or if its session is; else the user's switch."""
    if memoryless or (session_id and await sessions.is_memoryless(graph, scope, session_id)):
        return Tier(session_id, memoryless=True)
    switch = await user_settings.personal_intelligence(graph, scope.user_id)
    return Tier(session_id, personal_intelligence=switch)


def visible(memories: list[Memory], tier: Tier) -> list[Memory]:
    return [memory for memory in memories if tier.shows(memory)]


def keep_visible(outcome: RecallOutcome, tier: Tier) -> None:
    """Drops the hits the tier does not show (expansions included)."""
    if tier.personal_intelligence:
        return
    outcome.hits = [hit for hit in outcome.hits if tier.shows(hit.memory)]
    outcome.expanded = sum(1 for hit in outcome.hits if hit.related_to)
