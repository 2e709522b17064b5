"""Forgetting's decision for one memory, pure: keep, archive or delete, and why.

Protected memories are never archived or deleted by forgetting: pinned, flagged `protected`,
importance at or above `protect_importance`, touched (created or used) within `grace_days`,
or of a protected type. Below `archive_below` a memory is archived (hidden, restorable); below
`delete_below` (0 = never, the default) it is deleted, leaving a tombstone like any delete.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from app.lifecycle.relevance import days_between

Action = Literal["keep", "archive", "delete"]


@dataclass(frozen=True)
class ForgetPolicy:
    archive_below: float = 0.1
    delete_below: float = 0.0
    protect_importance: float = 0.7
    grace_days: float = 30.0
    protected_types: frozenset[str] = frozenset({"Decision", "Insight"})


def protection(props: Mapping[str, Any], now: datetime, policy: ForgetPolicy) -> str | None:
    """Why this memory may not be forgotten, or None."""
    if props.get("layer") == "raw":
        return "raw_layer"  # raw /remember evidence has its own retention (RAW_RETENTION_DAYS)
    if props.get("pinned"):
        return "pinned"
    if props.get("protected"):
        return "protected"
    if float(props.get("importance", 0.5)) >= policy.protect_importance:
        return "important"
    if str(props.get("type")) in policy.protected_types:
        return "protected_type"
    touched = max(str(props.get("created_at") or ""), str(props.get("last_accessed") or ""))
    if days_between(touched or None, now) < policy.grace_days:
        return "grace_period"
    return None


def decide(
    props: Mapping[str, Any], score: float, now: datetime, policy: ForgetPolicy
) -> tuple[Action, str | None]:
    """(action, protection reason): what forgetting does with a memory of this relevance."""
    reason = protection(props, now, policy)
    if reason is not None:
        return "keep", reason
    if policy.delete_below > 0 and score < policy.delete_below:
        return "delete", None
    if score < policy.archive_below:
        return "archive", None
    return "keep", None
