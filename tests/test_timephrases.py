"""Time phrases (app/timephrases.py): recall's windows and remember's dates agree."""

from datetime import UTC, datetime

import pytest

from app.timephrases import find_date, parse_time_phrase

NOW = datetime(2026, 11, 30, 15, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("today", "2026-11-30T00:00:00", "2026-11-30T15:30:00"),
        ("Yesterday", "2026-11-29T00:00:00", "2026-11-29T23:59:59.999999"),
        ("last 3 days", "2026-11-27T15:30:00", "2026-11-30T15:30:00"),
        ("past 24 hours", "2026-11-29T15:30:00", "2026-11-30T15:30:00"),
        ("last week", "2026-11-23T00:00:00", "2026-11-29T23:59:59.999999"),  # Monday to Sunday
        ("past week", "2026-11-23T15:30:00", "2026-11-30T15:30:00"),  # the rolling 7 days
        ("last month", "2026-10-01T00:00:00", "2026-10-31T23:59:59.999999"),
        ("last year", "2025-01-01T00:00:00", "2025-12-31T23:59:59.999999"),
        ("this week", "2026-11-30T00:00:00", "2026-11-30T15:30:00"),
        ("this month", "2026-11-01T00:00:00", "2026-11-30T15:30:00"),
        ("in March 2023", "2023-03-01T00:00:00", "2023-03-31T23:59:59.999999"),
        ("feb 2024", "2024-02-01T00:00:00", "2024-02-29T23:59:59.999999"),
        ("in 2022", "2022-01-01T00:00:00", "2022-12-31T23:59:59.999999"),
        ("on 8 May, 2023", "2023-05-08T00:00:00", "2023-05-08T23:59:59.999999"),
        ("May 8th, 2023", "2023-05-08T00:00:00", "2023-05-08T23:59:59.999999"),
    ],
)
def test_understood_phrases(phrase: str, start: str, end: str):
    window = parse_time_phrase(phrase, NOW)
    assert window is not None
    assert window[0].isoformat().startswith(start) and window[1].isoformat().startswith(end)


@pytest.mark.parametrize(
    "phrase", ["", "around the solstice", "31 February 2023", "last blue moon"]
)
def test_not_understood(phrase: str):
    assert parse_time_phrase(phrase, NOW) is None


@pytest.mark.parametrize(
    "phrase", ["yesterday", "last week", "last month", "last year", "this past week", "today"]
)
def test_recall_and_remember_read_a_phrase_as_the_same_days(phrase: str):
    window = parse_time_phrase(phrase, NOW)
    when = find_date(f"I did it {phrase}", NOW, future=False)
    assert window is not None and when is not None
    assert (window[0].date(), min(window[1], NOW).date()) == (
        when.first,
        min(when.last, NOW.date()),
    )


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("flying to Tokyo on the 12th of next month", "on 12 December 2026"),
        ("the 3rd of this month", "on 3 November 2026"),
        ("the 31st of next month", "on 31 December 2026"),
    ],
)
def test_a_day_of_a_month_named_by_its_place(text: str, phrase: str) -> None:
    found = find_date(text, NOW, future=True)
    assert found is not None and found.phrase == phrase


def test_a_day_the_month_does_not_have_leaves_the_month() -> None:
    found = find_date("the 31st of this month", NOW, future=True)
    assert found is not None and found.phrase == "in November 2026"
