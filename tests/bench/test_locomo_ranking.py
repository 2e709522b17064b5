"""The LoCoMo ranking analysis's pure parts: evidence by rank, the model and its held-out use."""

import numpy as np
import pytest

from bench.locomo import Question
from bench.locomo_ranking import (
    FEATURES,
    Asked,
    Candidates,
    fit_logistic,
    held_out_orders,
    rank_shares,
    recall_rows,
    variant_orders,
)


def asked(sample_id: str, evidence: tuple[str, ...], ranked: list[str]) -> Asked:
    scores = [1.0 - i / 100 for i in range(len(ranked))]
    return Asked(Question(sample_id, 0, 4, "q?", evidence), ranked, [{} for _ in ranked], scores)


def test_rank_shares_count_each_question_as_one():
    first = asked("a", ("D1:1", "D1:2"), ["D1:1"] + [f"D9:{i}" for i in range(30)] + ["D1:2"])
    second = asked("b", ("D2:5",), ["D2:1"])
    shares = rank_shares([first, second])
    assert shares == pytest.approx({"1–10": 0.25, "21–50": 0.25, "beyond 100": 0.5})


def test_fit_logistic_learns_which_feature_marks_the_evidence():
    rng = np.random.default_rng(7)
    features = rng.normal(size=(400, 2))
    labels = (features[:, 1] > 0.5).astype(float)
    model = fit_logistic(features, labels)
    scores = model.score(features)
    assert scores[labels == 1].min() > np.median(scores[labels == 0])
    assert abs(model.weights[2]) > 3 * abs(model.weights[1])


def candidates(sample_id: str, marked: int) -> Candidates:
    """Four candidates in Engram's order; the evidence is the one with feature 1.0."""
    ids = [f"D1:{i}" for i in range(4)]
    features = np.zeros((4, len(FEATURES)))
    features[marked, 0] = 1.0
    evidence = features[:, 0].copy()
    one = asked(sample_id, (ids[marked],), ids)
    return Candidates(one, ids, features, evidence, np.array(one.scores))


def test_held_out_orders_rank_by_a_model_of_the_other_conversations():
    pool = [candidates("a", 3), candidates("b", 2), candidates("c", 1)]
    orders = held_out_orders(pool, [0])
    assert [orders[n][0] for n in range(3)] == ["D1:3", "D1:2", "D1:1"]
    engram = recall_rows(pool, lambda _, one: one.asked.ranked[:2])
    model = recall_rows(pool, lambda n, _: orders[n][:2])
    assert engram["overall"][0] == pytest.approx(1 / 3)  # only "c" has its evidence in the top 2
    assert model["overall"][0] == pytest.approx(1.0)


def test_the_tried_reorderings_move_what_they_target():
    one = candidates("a", 0)  # Engram's order D1:0 … D1:3, all in one session, in order
    one.features[:, FEATURES.index("match")] = 1.0
    place = {"a": {f"D1:{i}": (1, i) for i in range(4)}}
    variants = variant_orders(place)
    diverse = variants["score − 0.05 per adjacent turn placed above"](0, one)
    # D1:1 sits next to D1:0 (and then D1:2 too), D1:3 only next to D1:2
    assert diverse == ["D1:0", "D1:2", "D1:3", "D1:1"]
    two_on = variants["score + 0.1 × match of a top-10 turn two before"](0, one)
    assert two_on == ["D1:2", "D1:3", "D1:0", "D1:1"]  # lifted by D1:0's and D1:1's match
