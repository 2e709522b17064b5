"""The LoCoMo benchmark's pure parts: evidence and date parsing, memory bodies, metrics."""

import json
from pathlib import Path

import pytest

from bench.locomo import (
    Question,
    Sample,
    Turn,
    chunks,
    conversation_turns,
    dataset_stats,
    hit_at,
    in_protocol_scope,
    load_samples,
    markdown_table,
    memory_body,
    normalise_dia_id,
    parse_evidence,
    parse_session_date,
    question_row,
    ranked_dia_ids,
    recall_at,
    reciprocal_rank,
    score,
    scored_questions,
    summarise,
    summarise_by_category,
    turn_content,
)

# --- Evidence ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:3"], ["D1:3"]),
        (["D1:3", "D2:7"], ["D1:3", "D2:7"]),
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),
        (["D8:6;D9:17"], ["D8:6", "D9:17"]),
        (["D2:1, D2:2"], ["D2:1", "D2:2"]),
        (["D:11:26"], ["D11:26"]),
        (["D1:18", "D", "D1:20"], ["D1:18", "D1:20"]),
        (["D3:4", "D3:4; D:3:4"], ["D3:4"]),
        ([" D5:1 "], ["D5:1"]),
        (["D05:01"], ["D5:1"]),
        ([], []),
        (["", "D", "x:1"], []),
    ],
)
def test_parse_evidence(raw: list[str], expected: list[str]) -> None:
    assert parse_evidence(raw) == expected


def test_normalise_dia_id() -> None:
    assert normalise_dia_id("D10:19") == "D10:19"
    assert normalise_dia_id("D:11:26") == "D11:26"
    assert normalise_dia_id("D") is None
    assert normalise_dia_id("D1") is None
    assert normalise_dia_id("E1:2") is None


# --- Dates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", "2023-05-08T13:56:00+00:00"),
        ("11:01 am on 17 December, 2022", "2022-12-17T11:01:00+00:00"),
        ("7:31 pm on 21 January, 2022", "2022-01-21T19:31:00+00:00"),
        ("12:05 am on 1 January, 2022", "2022-01-01T00:05:00+00:00"),
        ("12:30 pm on 31 December, 2023", "2023-12-31T12:30:00+00:00"),
        ("10:00 AM on 3 Sept 2023", "2023-09-03T10:00:00+00:00"),
        (" 9:15 p.m. on 29 Feb, 2024 ", "2024-02-29T21:15:00+00:00"),
    ],
)
def test_parse_session_date(text: str, expected: str) -> None:
    assert parse_session_date(text) == expected


@pytest.mark.parametrize(
    "text", ["", "8 May, 2023", "1:56 pm on 8 Maybe, 2023", "1:56 pm on 31 June, 2023"]
)
def test_parse_session_date_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_session_date(text)


# --- Turns, questions, memory bodies -----------------------------------------------------------

CONVERSATION = {
    "speaker_a": "Ann",
    "speaker_b": "Bo",
    "session_10": [{"speaker": "Bo", "dia_id": "D10:1", "text": "Later."}],
    "session_10_date_time": "9:00 am on 2 June, 2023",
    "session_2": [
        {"speaker": "Ann", "dia_id": "D2:1", "text": "Hi!"},
        {"speaker": "Bo", "dia_id": "D2:2", "text": "Look.", "blip_caption": "a photo of a cat"},
    ],
    "session_2_date_time": "1:56 pm on 8 May, 2023",
    "session_2_summary": "not a session",
}
QA = [
    {"question": "q0", "answer": "a", "evidence": ["D2:1"], "category": 4},
    {"question": "q1", "answer": "a", "evidence": [], "category": 3},
    {"question": "q2", "adversarial_answer": "a", "evidence": ["D2:2"], "category": 5},
    {"question": "q3", "answer": "a", "evidence": ["D"], "category": 1},
    {"question": "q4", "answer": "a", "evidence": ["D2:2; D:10:1", "D9:9"], "category": 2},
]


def test_turn_content() -> None:
    assert turn_content({"speaker": "Ann", "text": "Hi!"}) == "Ann: Hi!"
    shared = {"speaker": "Bo", "text": "Look.", "blip_caption": "a cat"}
    assert turn_content(shared) == "Bo: Look. [shares a cat]"
    assert turn_content({"speaker": "Bo", "text": "x", "blip_caption": ""}) == "Bo: x"


def test_conversation_turns_in_session_order() -> None:
    assert conversation_turns(CONVERSATION) == [
        Turn("D2:1", 2, "Ann: Hi!", "2023-05-08T13:56:00+00:00"),
        Turn("D2:2", 2, "Bo: Look. [shares a photo of a cat]", "2023-05-08T13:56:00+00:00"),
        Turn("D10:1", 10, "Bo: Later.", "2023-06-02T09:00:00+00:00"),
    ]


def test_scored_questions_keep_categories_1_to_4_with_evidence() -> None:
    assert scored_questions("conv-1", QA) == [
        Question("conv-1", 0, 4, "q0", ("D2:1",)),
        Question("conv-1", 4, 2, "q4", ("D2:2", "D10:1", "D9:9")),
    ]


def test_load_samples_and_stats(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    first = {"sample_id": "conv-1", "conversation": CONVERSATION, "qa": QA}
    path.write_text(json.dumps([first, {"sample_id": "conv-2", "conversation": {}, "qa": []}]))
    samples, stats = load_samples(path, ["conv-1"])
    assert [s.sample_id for s in samples] == ["conv-1"]
    assert stats == {
        "samples": ["conv-1"],
        "turns": 3,
        "questions": 5,
        "questions_categories_1_4": 4,
        "usable": 2,
        "skipped_without_evidence": 2,
        "malformed_evidence_tokens_dropped": ["D"],
        "evidence_ids_not_in_conversation": ["conv-1:D9:9"],
    }
    assert dataset_stats([], []) == {
        "samples": [],
        "turns": 0,
        "questions": 0,
        "questions_categories_1_4": 0,
        "usable": 0,
        "skipped_without_evidence": 0,
        "malformed_evidence_tokens_dropped": [],
        "evidence_ids_not_in_conversation": [],
    }


def test_memory_body() -> None:
    turn = Turn("D2:2", 2, "Bo: Look. [shares a cat]", "2023-05-08T13:56:00+00:00")
    assert memory_body("conv-26", turn) == {
        "content": "Bo: Look. [shares a cat]",
        "timestamp": "2023-05-08T13:56:00+00:00",
        "metadata": {"dia_id": "D2:2", "session": 2, "sample_id": "conv-26"},
        "tags": ["locomo"],
        "labels": {"dia_id": "D2:2", "session": 2},
        "source": {"session_id": "conv-26/session_2", "message_id": "D2:2"},
    }


def test_the_plain_protocol_sends_no_source_and_no_labels() -> None:
    turn = Turn("D2:2", 2, "Bo: Look.", "2023-05-08T13:56:00+00:00")
    assert memory_body("conv-26", turn, "plain") == {
        "content": "Bo: Look.",
        "timestamp": "2023-05-08T13:56:00+00:00",
        "metadata": {"dia_id": "D2:2", "session": 2, "sample_id": "conv-26"},
        "tags": ["locomo"],
    }


def test_the_plain_protocol_asks_in_its_own_scopes() -> None:
    question = Question("conv-26", 0, 2, "When?", ("D1:1",))
    sample = Sample("conv-26", [], [question])
    (plain,) = in_protocol_scope([sample], "plain")
    assert plain.sample_id == "conv-26-plain" and plain.questions[0].sample_id == "conv-26-plain"
    assert in_protocol_scope([sample], "default") == [sample]


def test_chunks() -> None:
    assert [len(c) for c in chunks(list(range(1001)), 500)] == [500, 500, 1]
    assert list(chunks([], 500)) == []


def test_ranked_dia_ids() -> None:
    body = {
        "status": "success",
        "results": [
            {"id": "1", "score": 0.9, "memory": {"metadata": {"dia_id": "D1:2"}}},
            {"id": "2", "score": 0.8, "memory": {"metadata": {}}},
            {"id": "3", "score": 0.7, "memory": {"metadata": {"dia_id": "D3:1"}}},
        ],
    }
    assert ranked_dia_ids(body) == ["D1:2", None, "D3:1"]
    assert ranked_dia_ids({"status": "success", "results": []}) == []


# --- Metrics -----------------------------------------------------------------------------------

RANKED = ["D9:9", "D1:1", None, "D1:1", "D2:2"]


def test_recall_at() -> None:
    evidence = ["D1:1", "D2:2"]
    assert recall_at(evidence, RANKED, 1) == 0.0
    assert recall_at(evidence, RANKED, 2) == 0.5
    assert recall_at(evidence, RANKED, 4) == 0.5  # a repeated turn counts once
    assert recall_at(evidence, RANKED, 5) == 1.0
    assert recall_at(evidence, RANKED, 20) == 1.0
    assert recall_at(["D1:1", "D2:2", "D3:3"], RANKED, 20) == 2 / 3
    assert recall_at(["D1:1"], [], 10) == 0.0


def test_hit_at() -> None:
    assert hit_at(["D2:2"], RANKED, 4) == 0.0
    assert hit_at(["D2:2"], RANKED, 5) == 1.0
    assert hit_at(["D1:1", "D2:2"], RANKED, 2) == 1.0


def test_reciprocal_rank() -> None:
    assert reciprocal_rank(["D1:1", "D2:2"], RANKED) == 0.5
    assert reciprocal_rank(["D9:9"], RANKED) == 1.0
    assert reciprocal_rank(["D2:2"], RANKED) == 0.2
    assert reciprocal_rank(["D7:7"], RANKED) == 0.0
    assert reciprocal_rank(["D2:2"], RANKED, depth=4) == 0.0
    assert reciprocal_rank(["D2:2"], ["x"] * 19 + ["D2:2"]) == 1 / 20
    assert reciprocal_rank(["D2:2"], ["x"] * 20 + ["D2:2"]) == 0.0


def test_score() -> None:
    ranked = ["D3:3"] + ["x"] * 9 + ["D1:1"] + ["y"] * 9
    assert score(["D1:1", "D3:3"], ranked) == {
        "r@1": 0.5,
        "r@5": 0.5,
        "r@10": 0.5,
        "r@20": 1.0,
        "hit@10": 1.0,
        "mrr": 1.0,
    }
    assert score(["D1:1"], ranked) == {
        "r@1": 0.0,
        "r@5": 0.0,
        "r@10": 0.0,
        "r@20": 1.0,
        "hit@10": 0.0,
        "mrr": 1 / 11,
    }


def row(category: int, ms: float, value: float, returned: int, degraded: list[str]) -> dict:
    """A per-question row with every metric equal to `value`."""
    metrics = dict.fromkeys(("r@1", "r@5", "r@10", "r@20", "hit@10", "mrr"), value)
    ranked = ["D1:1"] * returned
    return {"category": category, "ms": ms, "ranked": ranked, "degraded": degraded, **metrics}


ROWS = [
    row(1, 10.0, 1.0, 20, []),
    row(1, 20.0, 0.0, 0, ["qdrant"]),
    row(4, 30.0, 0.5, 20, []),
    row(4, 40.0, 0.5, 5, []),
]


def test_summarise() -> None:
    metrics = dict.fromkeys(("r@1", "r@5", "r@10", "r@20", "hit@10", "mrr"), 0.5)
    assert summarise(ROWS) == {
        "n": 4,
        **metrics,
        "p50_ms": 25.0,
        "p95_ms": 40.0,
        "mean_returned": 11.25,
        "degraded": 1,
    }
    assert summarise(ROWS[:1])["p95_ms"] == 10.0
    assert summarise([]) == {"n": 0}


def test_question_row() -> None:
    question = Question("conv-1", 7, 2, "When?", ("D1:1", "D2:2"))
    body = {"results": [{"memory": {"metadata": {"dia_id": "D2:2"}}}], "degraded": []}
    assert question_row(question, body, 12.3456) == {
        "sample_id": "conv-1",
        "qa_index": 7,
        "category": 2,
        "evidence": ["D1:1", "D2:2"],
        "ranked": ["D2:2"],
        "degraded": [],
        "ms": 12.35,
        "r@1": 0.5,
        "r@5": 0.5,
        "r@10": 0.5,
        "r@20": 0.5,
        "hit@10": 1.0,
        "mrr": 1.0,
    }


def test_summarise_by_category() -> None:
    by_category = summarise_by_category(ROWS)
    assert list(by_category) == ["multi-hop", "single-hop"]
    assert by_category["multi-hop"]["n"] == 2
    assert by_category["multi-hop"]["r@1"] == 0.5
    assert by_category["multi-hop"]["p50_ms"] == 15.0
    assert by_category["single-hop"]["mrr"] == 0.5


def test_markdown_table() -> None:
    table = markdown_table("config", {"bm25": summarise(ROWS), "empty": {"n": 0}})
    assert table.splitlines() == [
        "| config | n | R@1 | R@5 | R@10 | R@20 | hit@10 | MRR | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
        "| bm25 | 4 | 0.500 | 0.500 | 0.500 | 0.500 | 0.500 | 0.500 | 25.0 | 40.0 |",
    ]
