"""The current-state rule, shared by the search results and the relationship expansions."""

from collections.abc import Mapping
from typing import Any

from app.recall.params import RecallRequest

STATE_FIELDS = ("archived", "t_valid", "t_invalid", "expires_at")


def is_current(state: Mapping[str, Any], params: RecallRequest, stamp: str) -> bool:
    """state_mode=current hides archived, decayed, not-yet-valid and no-longer-valid memories."""
    if params.state_mode == "history":
        return True
    expires_at = state.get("expires_at")
    return not (
        (state.get("archived") and not params.include_archived)
        or (state.get("t_valid") and state["t_valid"] > stamp)
        or (state.get("t_invalid") and state["t_invalid"] <= stamp)
        or (not params.include_decayed and expires_at and expires_at <= stamp)
    )
