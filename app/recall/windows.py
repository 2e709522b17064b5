"""The `window` channel: the query's vector against the window vectors of conversation turns
(each turn embedded with the two before it: app/memories/windows.py).

A window that matches stands for all its turns: the turn it was made for takes the window's rank,
then the turns before it, nearest first, unless a better window already placed them. Only
windows whose turns all still exist in the graph, within the caller's scope, count; the others
are stale (a turn of theirs was deleted) and left out. Like every channel's, its hits are read
from the graph in scope before anything is shown, and pass the floor on their own evidence
(evidence.py): the window's similarity is not evidence for its turns.
"""

import logging

from app.recall.outcome import Search
from app.storage.graph.windows import current_members
from app.storage.vectors import VectorHit

log = logging.getLogger(__name__)


async def window_hits(search: Search, vector: list[float], fetch: int) -> list[tuple[str, float]]:
    """The turns of the best windows, best first; empty if the index fails (the other channels
    stand)."""
    try:
        hits = await search.stores.vectors.search_window(vector, search.flt, fetch)
        if not hits:
            return []
        members = await current_members(search.stores.graph, search.scope, [h.id for h in hits])
    except Exception:
        log.warning("window search failed; recall goes on without it", exc_info=True)
        return []
    return spread(hits, members)[:fetch]


def spread(hits: list[VectorHit], members: dict[str, list[str]]) -> list[tuple[str, float]]:
    """Each current window's turns in its place: its own turn, then the turns before it, nearest
    first; a turn already placed by a better window keeps that place."""
    ranked: dict[str, float] = {}
    for hit in hits:
        if hit.id not in members:
            continue  # stale, or not the caller's
        for memory_id in (hit.id, *reversed(members[hit.id])):
            ranked.setdefault(memory_id, hit.score)
    return list(ranked.items())
