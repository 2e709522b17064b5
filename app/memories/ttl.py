"""Per-type TTL defaults (mnemory's): episodic and procedural memories and short-term context
expire unless reinforced; facts, preferences and the other types are permanent.

A default applies only when the writer neither gave `ttl_days` (null is an explicit "permanent")
nor pinned the memory, and only to a type that was given or recognised: the unclassified
fallback (Context, flagged for reclassification) stays permanent, since an AutoMem client that
sends no type did not ask for a 7-day note. Expiry is soft (hidden from recall, restorable); a
recall hit resets the TTL of a live memory (app/recall/access.py).
"""

from collections.abc import Mapping

DEFAULT_TTL_DAYS: dict[str, float] = {"Event": 90.0, "Habit": 60.0, "Context": 7.0}
TtlTable = Mapping[str, float] | None  # type name -> days; None: DEFAULT_TTL_DAYS


def ttl_table(event_days: float, habit_days: float, context_days: float) -> dict[str, float]:
    """The TTL defaults by type from settings; 0 days means permanent (left out)."""
    table = {"Event": event_days, "Habit": habit_days, "Context": context_days}
    return {kind: days for kind, days in table.items() if days > 0}


def default_ttl(memory_type: str, table: TtlTable = None) -> float | None:
    """The TTL in days a new memory of this type gets, or None (permanent)."""
    return (DEFAULT_TTL_DAYS if table is None else table).get(str(memory_type))
