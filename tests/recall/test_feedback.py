"""Pseudo-relevance feedback (the prf channel): a bonus that never rescales the first pass and
never admits a memory on its own."""

from dataclasses import replace

import numpy as np
import pytest

from app.recall import feedback, rank
from app.recall.tuning import default_recall_config

_DEFAULT = default_recall_config().weights
# The channel's mechanism, with the weight it had before it was turned off by default.
W = replace(_DEFAULT, channel_weights={**_DEFAULT.channel_weights, rank.PRF: 0.6})


def test_the_feedback_vector_moves_the_query_towards_its_best_matches():
    query = [1.0, 0.0, 0.0]
    docs = [np.array([0.0, 1.0, 0.0], dtype=np.float32), np.array([0.0, 0.0, 1.0])]
    moved = np.asarray(feedback.feedback_vector(query, docs, beta=1.0))
    assert np.linalg.norm(moved) == pytest.approx(1.0, abs=1e-6)
    assert moved[1] == pytest.approx(moved[2]) and moved[1] > 0
    assert moved[0] > moved[1]  # the query still leads
    assert feedback.feedback_vector(query, docs, beta=0.0) == pytest.approx(query)


def test_a_question_asking_when_gets_no_feedback():
    assert feedback.asks_when("When did Caroline go to the support group?")
    assert feedback.asks_when("Caroline moved when, exactly?")
    assert not feedback.asks_when("What activities does Melanie partake in?")
    assert not feedback.asks_when("Whenever I travel, what should I pack?")


def test_the_feedback_channel_is_a_bonus_outside_the_normaliser():
    channels = ["dense", "bm25", rank.PRF]
    first_pass = rank.Candidate("a", ranks={"dense": 0, "bm25": 0})
    assert rank.match_score(first_pass, W, channels) == pytest.approx(1.0)  # as without it
    both = rank.Candidate("b", ranks={"dense": 0, "bm25": 0, rank.PRF: 0})
    bonus = W.channel_weights[rank.PRF] / W.rrf_k
    best = sum(W.channel_weights[c] for c in ("dense", "bm25")) / W.rrf_k
    assert rank.match_score(both, W, channels) == pytest.approx(1.0 + bonus / best)
    only = rank.Candidate("c", ranks={rank.PRF: 0})
    assert 0 < rank.match_score(only, W, channels) < rank.match_score(first_pass, W, channels)


def test_feedback_off_when_its_weight_is_zero():
    off = replace(W, channel_weights={"dense": 1.0, "bm25": 1.5, rank.PRF: 0.0})
    only = rank.Candidate("c", ranks={rank.PRF: 0})
    assert rank.match_score(only, off, ["dense", "bm25", rank.PRF]) == 0.0
