"""Recall's ranking weighs the lifecycle's relevance score a little (app/recall/rank.py)."""

from datetime import UTC, datetime

from app.recall.rank import Candidate, score
from app.recall.tuning import default_recall_config

DEFAULT_WEIGHTS = default_recall_config().weights

NOW = datetime(2026, 6, 1, tzinfo=UTC)
FACTS = {"importance": 0.5, "confidence": 0.5, "timestamp": "2026-05-01T00:00:00+00:00"}


def scored(relevance_score: float | None, ranks: dict[str, int] | None = None) -> float:
    candidate = Candidate("m", ranks=ranks or {"dense": 0})
    memory = {**FACTS, "relevance_score": relevance_score}
    return score(candidate, memory, now=NOW, weights=DEFAULT_WEIGHTS, channels=["dense"]).score


def test_a_memory_still_in_use_ranks_above_an_equal_match_that_faded():
    assert scored(0.9) > scored(0.1)
    used = score(
        Candidate("m", ranks={"dense": 0}),
        {**FACTS, "relevance_score": 0.9},
        now=NOW,
        weights=DEFAULT_WEIGHTS,
        channels=["dense"],
    )
    assert used.components["relevance"] == 0.9 * DEFAULT_WEIGHTS.relevance


def test_an_unscored_memory_counts_as_neutral():
    assert scored(None) == scored(0.5)


def test_relevance_does_not_outrank_a_clearly_better_match():
    assert scored(0.0, {"dense": 0}) > scored(1.0, {"dense": 3})
