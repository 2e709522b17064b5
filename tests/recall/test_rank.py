"""Fusion and scoring are pure: whole values in, whole values out."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from app.recall import rank
from app.recall.tuning import default_recall_config

NOW = datetime(2026, 11, 30, tzinfo=UTC)
W = default_recall_config().weights


def test_fuse_merges_channel_ranks_and_scores():
    fused = rank.fuse({"dense": [("a", 0.9), ("b", 0.8)], "bm25": [("b", 7.0), ("c", 3.0)]})
    assert fused["a"].ranks == {"dense": 0} and fused["a"].scores == {"dense": 0.9}
    assert fused["b"].ranks == {"dense": 1, "bm25": 0}
    assert fused["c"].ranks == {"bm25": 1}


def test_match_is_normalised_weighted_rrf():
    even = replace(W, channel_weights={"dense": 1.0, "bm25": 1.0}, rrf_k=60)
    top = rank.Candidate("x", ranks={"dense": 0, "bm25": 0})
    assert rank.match_score(top, even, ["dense", "bm25"]) == pytest.approx(1.0)
    one_side = rank.Candidate("y", ranks={"dense": 0})
    assert rank.match_score(one_side, even, ["dense", "bm25"]) == pytest.approx(0.5)
    second = rank.Candidate("z", ranks={"dense": 1, "bm25": 1})
    assert rank.match_score(second, even, ["dense", "bm25"]) == pytest.approx(60 / 61)
    sharp = replace(W, channel_weights={"dense": 1.0, "bm25": 1.0}, rrf_k=5)
    assert rank.match_score(second, sharp, ["dense", "bm25"]) == pytest.approx(5 / 6)
    keyword_heavy = replace(W, channel_weights={"dense": 1.0, "bm25": 3.0}, rrf_k=60)
    assert rank.match_score(
        rank.Candidate("z", ranks={"bm25": 0}), keyword_heavy, ["dense", "bm25"]
    ) == pytest.approx(0.75)


def test_recency_curves():
    assert rank.recency("2026-11-30T00:00:00+00:00", NOW, W) == pytest.approx(1.0)
    assert rank.recency("2026-06-03T00:00:00+00:00", NOW, W) == pytest.approx(0.5, abs=0.01)
    linear = replace(W, recency_curve="linear")
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
        "relevance_score": 1.0,
    }
    scored = rank.score(candidate, memory, now=NOW, weights=W, channels=["dense", "bm25"])
    assert scored.score == pytest.approx(1.0 + 0.1 + 0.05 + 0.1 + 0.05)
    assert scored.components["vector"] == 0.8 and scored.components["keyword"] == 4.0
    raw = rank.score(
        candidate, {**memory, "layer": "raw"}, now=NOW, weights=W, channels=["dense", "bm25"]
    )
    assert raw.score == pytest.approx(scored.score - 0.05)
    superseded = {**memory, "layer": "raw", "superseded_by": "its-consolidated-copy"}
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


def test_fused_scores_at_once_are_each_fused_score_exactly():
    channels = ["dense", "bm25", "context"]
    candidates = [
        rank.Candidate("a", ranks={"dense": 0, "bm25": 3}),
        rank.Candidate("b", ranks={"bm25": 1}, share=0.5),
        rank.Candidate("c", context=0.3),
    ]
    at_once = rank.fused_scores(candidates, W, channels)
    assert at_once == {c.id: rank.fused_score(c, W, channels) for c in candidates}
    memory = {"importance": 0.7, "timestamp": "2026-06-03T00:00:00+00:00", "content": "x"}
    for c in candidates:
        given = rank.score(c, memory, now=NOW, weights=W, channels=channels, fused=at_once[c.id])
        assert given == rank.score(c, memory, now=NOW, weights=W, channels=channels)


def test_context_is_a_lift_not_a_ranked_channel():
    even = replace(W, channel_weights={"dense": 1.0, "bm25": 1.0}, rrf_k=5, context=0.5)
    seed = rank.Candidate("s", ranks={"dense": 0, "bm25": 1})
    seed_match = rank.fused_score(seed, even, ["dense", "bm25", "context"])
    assert seed_match == pytest.approx((1 / 5 + 1 / 6) / (2 / 5))  # "context" adds no rank
    assert rank.context_lift(seed_match, even) == pytest.approx(0.5 * seed_match)
    neighbour = rank.Candidate("n", context=rank.context_lift(seed_match, even))
    assert rank.match_score(neighbour, even, ["dense", "bm25"]) == pytest.approx(0.5 * seed_match)
    both = rank.Candidate("b", ranks={"bm25": 0}, context=0.25)
    assert rank.match_score(both, even, ["dense", "bm25"]) == pytest.approx(0.5 + 0.25)
    scored = rank.score(neighbour, {}, now=NOW, weights=even, channels=["dense", "bm25"])
    assert scored.components["context"] == pytest.approx(0.5 * seed_match, abs=1e-6)
    alone = rank.Candidate("a", ranks={"bm25": 0})
    assert "context" not in rank.score(alone, {}, now=NOW, weights=W, channels=["bm25"]).components


def test_name_term_prefers_the_named_speaker_then_a_mention():
    weights = replace(W, name_lead=0.2, name_mention=0.1)
    names = ["Caroline"]
    assert rank.name_term("Caroline: I went to a support group", names, weights) == 0.2
    assert rank.name_term("Caroline's sister lives in Oslo", names, weights) == 0.2
    assert rank.name_term("CAROLINE - notes from Monday", names, weights) == 0.2
    assert rank.name_term("Melanie: Hey Caroline, how was it?", names, weights) == 0.1
    assert rank.name_term("Melanie: Hey Carol, how was it?", names, weights) == 0.0
    assert rank.name_term("Melanie: the Carolines came by", names, weights) == 0.0  # whole words
    assert rank.name_term("— caroline: hi", names, weights) == 0.2  # the first word
    assert rank.name_term("Melanie: How was it?", names, weights) == 0.0
    assert rank.name_term("Caroline: hi", [], weights) == 0.0
    assert rank.name_term("", names, weights) == 0.0


def test_name_term_words_end_at_any_letter_not_only_ascii():
    weights = replace(W, name_lead=0.2, name_mention=0.1)
    assert rank.name_term("2023 – Zoë: hi", ["Zoë"], weights) == 0.2
    assert rank.name_term("Mel: ask ZOË later", ["Zoë"], weights) == 0.1
    assert rank.name_term("Mel: Renéeà came", ["Renée"], weights) == 0.0
    assert rank.name_term("Mel: Caroline2 came", ["Caroline"], weights) == 0.1  # digits split
    assert rank.name_term("Mel: Caroline caroline", ["Caroline", "Mel"], weights) == 0.2


def test_score_adds_the_name_term_only_when_the_query_names_someone():
    candidate = rank.Candidate("m", ranks={"dense": 0, "bm25": 0})
    memory = {
        "importance": 0.5,
        "confidence": 0.5,
        "layer": "consolidated",
        "content": "Caroline: I researched adoption agencies",
    }
    plain = rank.score(candidate, memory, now=NOW, weights=W, channels=["dense", "bm25"])
    named = rank.score(
        candidate, memory, now=NOW, weights=W, channels=["dense", "bm25"], names=["Caroline"]
    )
    assert "name" not in plain.components
    assert named.components["name"] == W.name_lead
    assert named.score == pytest.approx(plain.score + W.name_lead)
    other = rank.score(
        candidate, memory, now=NOW, weights=W, channels=["dense", "bm25"], names=["Melanie"]
    )
    assert other.components["name"] == 0.0 and other.score == pytest.approx(plain.score)
    pure = rank.score(
        candidate,
        memory,
        now=NOW,
        weights=W,
        channels=["dense", "bm25"],
        names=["Caroline"],
        adjust=False,
    )
    assert pure.score == pytest.approx(1.0) and "name" not in pure.components


@pytest.mark.parametrize(
    ("scores", "kept"),
    [
        ([1.0, 0.9, 0.85, 0.8, 0.3, 0.25, 0.2, 0.1], 4),  # drop of 0.5 after the 4th: cut there
        ([1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3], 8),  # no drop above 25% of the top
        ([1.0, 0.2, 0.19, 0.18, 0.17, 0.16], 6),  # the cut would keep 1 of 6: fewer than half
        ([1.0, 0.1, 0.05], 3),  # three or fewer: never cut
        ([1.0, 0.95, 0.9, 0.88, 0.87, 0.86, 0.85, 0.84, 0.2, 0.1], 10),  # drop outside the window
        ([1.0, 0.9, 0.8, 0.2, 0.1, 0.1, 0.1], 7),  # odd n: the window (3) never keeps half (4)
    ],
)
def test_adaptive_cut(scores: list[float], kept: int):
    assert rank.adaptive_cut(scores) == kept


def test_a_sub_query_match_counts_for_its_share():
    hits = {"dense": [("a", 0.9)], "bm25": [("a", 3.0)]}
    whole = rank.fuse(hits)["a"]
    half = rank.fuse(hits, share=0.5)["a"]
    channels = ["dense", "bm25"]
    assert rank.match_score(whole, W, channels) == pytest.approx(1.0)
    assert rank.match_score(half, W, channels) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("content", "share"),
    [
        ("Nate: I took my turtles out for a walk. It was fun!", 0.0),
        ("Tim: Who is your favourite basketball player?", 1.0),
        ("Caroline: Hey Mel! What's up?", 0.5),
        ("Really?? No way... tell me more", 1 / 3),
        ("The build takes 3.5 minutes, why?", 1.0),
        ("", 0.0),
        # a turn that states something and asks is evidence of what it states
        ("I just switched to a Ford F-150 pickup model. Any tips on decals?", 0.0),
        ("Any tips on decals? I just switched to a Ford F-150 pickup model", 0.0),
    ],
)
def test_question_share_counts_sentences_that_ask(content: str, share: float):
    assert rank.question_share(content) == pytest.approx(share)


def test_question_share_is_linear_in_a_long_content():
    long = "Is it? " * 20_000 + "It is."
    assert rank.question_share(long) == pytest.approx(20_000 / 20_001)


def test_a_memory_that_asks_loses_a_share_of_its_score():
    candidate = rank.Candidate("m", ranks={"dense": 0, "bm25": 0})
    statement = {"content": "I support the Wolves.", "importance": 0.5, "confidence": 0.5}
    question = {**statement, "content": "Which team do you support? I like the Wolves."}
    told = rank.score(candidate, statement, now=NOW, weights=W, channels=["dense", "bm25"])
    asked = rank.score(candidate, question, now=NOW, weights=W, channels=["dense", "bm25"])
    assert "question" not in told.components
    assert asked.components["question"] == pytest.approx(-0.5 * 0.5 * told.score)
    assert asked.score == pytest.approx(told.score * 0.75)
    assert asked.match == told.match  # the match (what the floor and the context lift read) stays
    off = replace(W, question=0.0)
    unchanged = rank.score(candidate, question, now=NOW, weights=off, channels=["dense", "bm25"])
    assert unchanged.score == pytest.approx(told.score)
    pure = rank.score(candidate, question, now=NOW, weights=W, channels=["dense"], adjust=False)
    assert "question" not in pure.components


def _scored(memory: dict, **asked) -> rank.Scored:
    candidate = rank.Candidate("m", ranks={"dense": 0, "bm25": 0})
    return rank.score(candidate, memory, now=NOW, weights=W, channels=["dense", "bm25"], **asked)


def test_a_memory_of_the_other_speaker_loses_a_share():
    said = {"content": "My dog is called Max.", "role": "user"}
    echoed = {"content": "Max is a lovely name for your dog!", "role": "assistant"}
    mine, theirs = _scored(said, speaker="user"), _scored(echoed, speaker="user")
    assert "speaker" not in mine.components
    assert theirs.components["speaker"] == pytest.approx(-W.speaker * _scored(echoed).score)
    assert theirs.score < mine.score
    # asked for what the assistant said, the user's turn gives way instead
    assert _scored(said, speaker="assistant").score < _scored(echoed, speaker="assistant").score
    assert "speaker" not in _scored(echoed).components  # a question about no one in particular
