"""A question that asks for the value as it is now ("currently", "so far", "still":
asking.asks_for_now) wants the latest of its answers: each result gains up to a weight in
proportion to when it was said between the earliest and the latest of the query's results
(docs/recall.md, The current value first)."""

import dataclasses
from datetime import datetime

from app.models import MemoryProps
from app.recall import rank
from app.recall.asking import asks_for_now


def lift(
    kept: dict[str, tuple[rank.Scored, str, str]], visible: dict[str, MemoryProps], weight: float
) -> None:
    """For a query that asks for the value as it is now (asking.asks_for_now), each result
    gains up to `weight` by how late it was said among its query's results: the latest the
    whole weight, the earliest none, so of two answers alike the newer comes first."""
    by_query: dict[str, list[str]] = {}
    for shown, (_, query, _source) in kept.items():
        if asks_for_now(query):
            by_query.setdefault(query, []).append(shown)
    for shown_ids in by_query.values():
        said = {s: _seconds(visible[kept[s][2]].get("timestamp")) for s in shown_ids}
        known = [t for t in said.values() if t is not None]
        if len(known) < 2 or max(known) == min(known):
            continue
        first, span = min(known), max(known) - min(known)
        for shown in shown_ids:
            scored, query, source = kept[shown]
            gain = weight * ((said[shown] or first) - first) / span
            components = {**scored.components, "latest": gain}
            kept[shown] = (
                dataclasses.replace(scored, score=scored.score + gain, components=components),
                query,
                source,
            )


def _seconds(timestamp: str | None) -> float | None:
    try:
        return datetime.fromisoformat(timestamp).timestamp() if timestamp else None
    except ValueError:
        return None
