"""/recall parameter parsing: AutoMem's aliases, defaults, clamping and errors."""

import pytest

from app.errors import BadRequest
from app.recall.params import parse


def test_defaults():
    params = parse({})
    assert (params.limit, params.sort, params.state_mode, params.tag_mode, params.tag_match) == (
        5,
        "score",
        "current",
        "any",
        "prefix",
    )
    assert params.channels == ["dense", "bm25", "context"] and params.rerank is True


def test_aliases_lists_and_clamping():
    params = parse(
        {"order_by": ["time_desc"], "time": ["yesterday"], "tags": ["a,b", "c"], "limit": ["500"]}
    )
    assert params.sort == "time_desc" and params.time_query == "yesterday"
    assert params.tags == ["a", "b", "c"] and params.limit == 100
    assert parse({"limit": "zero"}).limit == 5 and parse({"limit": "-3"}).limit == 1
    assert parse({"sort": "sideways"}).sort == "score"
    assert parse({"tag_mode": "ALL", "tag_match": "weird"}).tag_mode == "all"
    assert parse({"min_score": "7"}).min_score == 1.0


def test_current_only_wins_over_state_mode():
    assert parse({"current_only": "false", "state_mode": "current"}).state_mode == "history"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"state_mode": "maybe"}, "'state_mode' must be 'current' or 'history'"),
        ({"start": "soon"}, "Invalid start time"),
        ({"end": ["2026-13-01"]}, "Invalid end time"),
        ({"embedding": "a,b"}, "Invalid 'embedding'"),
        ({"labels": "novalue"}, "Invalid 'labels'"),
        ({"channels": "graph,psychic"}, "Invalid 'channels'"),
    ],
)
def test_errors(raw: dict, message: str):
    with pytest.raises(BadRequest, match=message.replace("(", r"\(")):
        parse(raw)


def test_not_yet_supported_parameters_are_reported():
    assert parse({"expand_entities": "true", "priority_ids": "x"}).unsupported == [
        "priority_ids",
    ]
    assert parse({"entity_expansion": "false"}).unsupported == []


def test_labels_from_query_pairs_or_body_object():
    assert parse({"labels": ["project=a", "env=prod"]}).labels == ["project=a", "env=prod"]
    assert parse({"labels": {"reviewed": True, "n": 2}}).labels == ["reviewed=true", "n=2"]
