"""Time phrases → windows, against a fixed now."""

from datetime import UTC, datetime

import pytest

from app.recall.timewindow import parse_time_phrase

NOW = datetime(2026, 11, 30, 15, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("today", "2026-11-30T00:00:00", "2026-11-30T15:30:00"),
        ("Yesterday", "2026-11-29T00:00:00", "2026-11-29T23:59:59.999999"),
        ("last 3 days", "2026-11-27T15:30:00", "2026-11-30T15:30:00"),
        ("past 24 hours", "2026-11-29T15:30:00", "2026-11-30T15:30:00"),
        ("last week", "2026-11-23T15:30:00", "2026-11-30T15:30:00"),
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
