"""A short-lived, per-graph cache of each user's Personal Intelligence switch, so that a recall
does not read the graph for it every time.

Correctness: a change made through this process (PUT /me/settings, a user's erasure) drops the
user's entry before it answers, and a read that was in flight across the change does not put
its stale answer back (each entry is stored only if no change happened since its read began).
Another API process sharing the graph sees a change within TTL_S.
"""

import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

TTL_S = 1.0
MAX_USERS = 10_000  # entries per graph; past it the cache starts over (bounded memory)


@dataclass
class _Entries:
    values: dict[str, tuple[float, bool]] = field(default_factory=dict)  # user -> (until, value)
    changes: dict[str, int] = field(default_factory=dict)  # user -> changes seen (generation)
    epoch: int = 0  # bumped when every entry is dropped


_BY_GRAPH: "weakref.WeakKeyDictionary[object, _Entries]" = weakref.WeakKeyDictionary()


def _entries(graph: object) -> _Entries:
    entries = _BY_GRAPH.get(graph)
    if entries is None:
        entries = _BY_GRAPH[graph] = _Entries()
    return entries


async def cached(graph: object, user_id: str, read: Callable[[], Awaitable[bool]]) -> bool:
    """The user's value: the cached one if fresh, else `read()`'s (then cached)."""
    entries = _entries(graph)
    hit = entries.values.get(user_id)
    if hit is not None and hit[0] > time.monotonic():
        return hit[1]
    seen = (entries.epoch, entries.changes.get(user_id, 0))
    value = await read()
    if seen == (entries.epoch, entries.changes.get(user_id, 0)):  # no change during the read
        if len(entries.values) >= MAX_USERS:
            entries.values.clear()
        entries.values[user_id] = (time.monotonic() + TTL_S, value)
    return value


def forget(graph: object, user_id: str | None = None) -> None:
    """Drops the user's entry (every entry if None): called by whatever changes the setting."""
    entries = _entries(graph)
    if user_id is None:
        entries.values.clear()
        entries.changes.clear()
        entries.epoch += 1
        return
    entries.values.pop(user_id, None)
    entries.changes[user_id] = entries.changes.get(user_id, 0) + 1
