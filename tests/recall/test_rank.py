"""Fusion and scoring are pure: whole values in, whole values out."""

from datetime import UTC, datetime

import pytest

from app.recall import rank

NOW = datetime(2026, 11, 30, tzinfo=UTC)
W = rank.Weights()


def test_fuse_merges_channel_ranks_and_scores():
    fused = rank.fuse({"dense": [("a", 0.9), ("b", 0.8)], "bm25": [("b", 7.0), ("c", 3.0)]})
    assert fused["a"].ranks == {"dense": 0} and fused["a"].scores == {"dense": 0.9}
    assert fused["b"].ranks == {"dense": 1, "bm25": 0}
    assert fused["c"].ranks == {"bm25": 1}


def test_match_is_normalised_weighted_rrf():
    even = rank.Weights(channel_weights={"dense": 1.0, "bm25": 1.0}, rrf_k=60)
    top = rank.Candidate("x", ranks={"dense": 0, "bm25": 0})
    assert rank.match_score(top, even, ["dense", "bm25"]) == pytest.approx(1.0)
    one_side = rank.Candidate("y", ranks={"dense": 0})
    assert rank.match_score(one_side, even, ["dense", "bm25"]) == pytest.approx(0.5)
    second = rank.Candidate("z", ranks={"dense": 1, "bm25": 1})
    assert rank.match_score(second, even, ["dense", "bm25"]) == pytest.approx(60 / 61)
    sharp = rank.Weights(channel_weights={"dense": 1.0, "bm25": 1.0}, rrf_k=5)
    assert rank.match_score(second, sharp, ["dense", "bm25"]) == pytest.approx(5 / 6)
    keyword_heavy = rank.Weights(channel_weights={"dense": 1.0, "bm25": 3.0}, rrf_k=60)
    assert rank.match_score(
        rank.Candidate("z", ranks={"bm25": 0}), keyword_heavy, ["dense", "bm25"]
    ) == pytest.approx(0.75)


def test_recency_curves():
    assert rank.recency("2026-11-30T00:00:00+00:00", NOW, W) == pytest.approx(1.0)
    assert rank.recency("2026-06-03T00:00:00+00:00", NOW, W) == pytest.approx(0.5, abs=0.01)
    linear = rank.Weights(recency_curve="linear")
    assert rank.recency("2026-06-03T00:00:00+00:00", NOW, linear) == pytest.approx(0.5, abs=0.01)
    assert rank.recency(None, NOW, W) == 0.0


def test_score_adds_every_term_and_layer_penalties():
    candidate = rank.Candidate(
        "m", ranks={"dense": 0, "bm25": 0}, scores={"dense": 0.8, "bm25": 4.0}
    )
    memory = {
        "importance": 1.0,
        "confidence": 1.0,
        "timestamp": "2026-11-30T00:00:00+00:00",
        "layer": "consolidated",
    }
    scored = rank.score(candidate, memory, now=NOW, weights=W, channels=["dense", "bm25"])
    assert scored.score == pytest.approx(1.0 + 0.1 + 0.05 + 0.1)
    assert scored.components["vector"] == 0.8 and scored.components["keyword"] == 4.0
    raw = rank.score(
        candidate, {**memory, "layer": "raw"}, now=NOW, weights=W, channels=["dense", "bm25"]
    )
    assert raw.score == pytest.approx(scored.score - 0.05)
    superseded = {**memory, "layer": "raw", "superseded": True}
    assert rank.score(
        candidate, superseded, now=NOW, weights=W, channels=["dense", "bm25"]
    ).score == pytest.approx(scored.score - 0.15)
    pure = rank.score(
        candidate, memory, now=NOW, weights=W, channels=["dense", "bm25"], adjust=False
    )
    assert pure.score == pytest.approx(1.0)


def test_rank_orders_by_score_then_match_then_id():
    items = [
        rank.Scored("b", 0.5, 0.4, {}),
        rank.Scored("a", 0.5, 0.4, {}),
        rank.Scored("c", 0.5, 0.9, {}),
        rank.Scored("d", 0.7, 0.1, {}),
    ]
    assert [s.id for s in rank.rank(items)] == ["d", "c", "a", "b"]
