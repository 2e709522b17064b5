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
    assert params.channels == ["dense", "bm25", "context", "window"] and params.rerank is True


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


@pytest.mark.parametrize("name", ["min_score", "relevance_floor", "expand_min_importance"])
def test_nan_is_no_number_and_takes_the_default(name):
    """NaN compares false with every score: as a threshold it would let everything through and
    be answered as `null`."""
    assert getattr(parse({name: "nan"}), name) == getattr(parse({}), name)
    assert getattr(parse({name: "-inf"}), name) == 0.0
    assert getattr(parse({name: "inf"}), name) == 1.0


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


def test_auto_decompose_and_adaptive_floor_are_opt_in():
    assert (parse({}).auto_decompose, parse({}).adaptive_floor) == (False, False)
    params = parse({"auto_decompose": "1", "adaptive_floor": "TRUE"})
    assert (params.auto_decompose, params.adaptive_floor) == (True, True)


@pytest.mark.parametrize("value", ["yes", "on", "y", "no", "off", "2", "truthy"])
def test_a_boolean_is_true_false_1_or_0_and_nothing_else(value: str):
    """Issue 41: "yes" was read as true, and any other word as the default."""
    for name in ("rerank", "include_archived", "current_only"):
        with pytest.raises(BadRequest, match=f"Invalid '{name}': must be true or false"):
            parse({name: [value]})
    assert parse({"rerank": "", "include_archived": "0"}).rerank is True  # empty: the default


def test_context_hints_become_a_soft_boost_profile():
    params = parse({"context_tags": "Project:x", "context_types": "decision", "lang": "py"})
    assert params.language == "python"
    assert params.priority.tags == (
        "project:x",
        "python",
        "python-style",
        "python:style",
        "coding-style",
    )
    assert params.priority.types == ("Decision", "Style", "Preference")
    assert parse({"file_path": "src/app/main.RS"}).language == "rust"
    assert parse({"language": "cobol"}).language is None
    assert parse({"context": " Work "}).priority.tags == ("work",)
    assert not parse({}).priority


def test_priority_ids_and_scope_fallback():
    params = parse({"priority_ids": "a,b,a", "scope_fallback": "true"})
    assert (params.priority_ids, params.scope_fallback) == (["a", "b"], True)
    with pytest.raises(BadRequest, match="Invalid 'context_types'"):
        parse({"context_types": "nonsense"})


def test_labels_from_query_pairs_or_body_object():
    assert parse({"labels": ["project=a", "env=prod"]}).labels == ["project=a", "env=prod"]
    assert parse({"labels": {"reviewed": True, "n": 2}}).labels == ["reviewed=true", "n=2"]
