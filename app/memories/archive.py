"""Archiving by PATCH: the fields a change of `archived` sets."""

from typing import Any


def archive_changes(archived_now: bool, given: dict[str, Any], now: str) -> None:
    """Completes a PATCH's changes: {"archived": true} archives at `now`; {"archived": false}
    restores and counts as a use (`last_accessed`), so the grace period keeps forgetting from
    archiving it again at once. Asking for the state it is already in changes nothing."""
    if "archived" not in given:
        return
    if given["archived"] == archived_now:
        del given["archived"]
        return
    given["archived_at"] = now if given["archived"] else None
    if not given["archived"]:
        given["last_accessed"] = now
