"""Relevance: how much a memory still matters, a pure function of its facts and the time.

    fresh     = 0.5 ^ (age_days / half_life[type])            1 for pinned memories
    used      = 0.5 ^ (idle_days / ACCESS_HALF_LIFE) · strength(access_count)    0 if never used
    strength  = min(1, 0.5 + 0.2 · ln(1 + access_count))
    base      = 1 − (1 − fresh) · (1 − used)                  fresh OR recently used
    quality   = (0.6 + 0.4 · importance) · (0.85 + 0.15 · confidence)
    links     = 1 + 0.1 · ln(1 + relationship_count)
    relevance = clamp(base · quality · links, importance · floor, 1)

`age_days` counts from `created_at` (record time, not the back-datable `timestamp`: an import of
old conversations starts fresh); `idle_days` from `last_accessed`, which recall's reinforcement
moves forward. Each type ages at its own rate (a half-life in days); a pinned memory never
decays. The importance floor keeps an important memory above the archive threshold however
old it is. The result is in [0, 1] and rounded to 4 places.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# Half-lives in days per memory type: short-lived context and events fade fast, knowledge slowly.
DEFAULT_HALF_LIVES: dict[str, float] = {
    "Context": 14.0,
    "Event": 30.0,
    "Habit": 60.0,
    "Pattern": 120.0,
    "Style": 180.0,
    "Fact": 180.0,
    "Preference": 180.0,
    "Decision": 365.0,
    "Insight": 365.0,
}
FALLBACK_HALF_LIFE = 90.0
ACCESS_HALF_LIFE = 30.0  # a use keeps a memory fresh for about this long
DAY_S = 86_400.0


@dataclass(frozen=True)
class RelevanceConfig:
    half_lives: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_HALF_LIVES))
    access_half_life: float = ACCESS_HALF_LIFE
    importance_floor: float = 0.15  # relevance never falls below importance × this

    def half_life(self, memory_type: str) -> float:
        return float(self.half_lives.get(memory_type, FALLBACK_HALF_LIFE))


@dataclass(frozen=True)
class Facts:
    """What relevance is computed from (read off a memory and its graph degree)."""

    type: str
    importance: float
    confidence: float
    created_at: str
    last_accessed: str | None = None
    access_count: int = 0
    relationship_count: int = 0
    pinned: bool = False

    @classmethod
    def of(cls, props: Mapping[str, Any], relationship_count: int = 0) -> "Facts":
        """From a memory's properties (graph or model dump)."""
        return cls(
            type=str(props.get("type") or "Context"),
            importance=float(props.get("importance", 0.5)),
            confidence=float(props.get("confidence", 0.5)),
            created_at=str(props.get("created_at") or props.get("timestamp")),
            last_accessed=props.get("last_accessed"),
            access_count=int(props.get("access_count") or 0),
            relationship_count=relationship_count,
            pinned=bool(props.get("pinned")),
        )


def days_between(earlier: str | None, now: datetime) -> float:
    """Days from an ISO time to now, never negative; 0 for a missing time."""
    if not earlier:
        return 0.0
    return max(0.0, (now - datetime.fromisoformat(earlier)).total_seconds() / DAY_S)


def halving(days: float, half_life: float) -> float:
    """0.5 ^ (days / half_life); a non-positive half-life means "never decays"."""
    if half_life <= 0:
        return 1.0
    return math.pow(0.5, days / half_life)


def relevance(facts: Facts, now: datetime, config: RelevanceConfig | None = None) -> float:
    """The memory's relevance at `now`, in [0, 1] (see the module docstring)."""
    config = config or RelevanceConfig()
    if facts.pinned:
        fresh = 1.0
    else:
        fresh = halving(days_between(facts.created_at, now), config.half_life(facts.type))
    used = 0.0
    if facts.access_count > 0:
        strength = min(1.0, 0.5 + 0.2 * math.log1p(facts.access_count))
        idle = days_between(facts.last_accessed or facts.created_at, now)
        used = halving(idle, config.access_half_life) * strength
    base = 1.0 - (1.0 - fresh) * (1.0 - used)
    quality = (0.6 + 0.4 * facts.importance) * (0.85 + 0.15 * facts.confidence)
    links = 1.0 + 0.1 * math.log1p(max(facts.relationship_count, 0))
    score = min(1.0, base * quality * links)
    return round(max(score, facts.importance * config.importance_floor), 4)
