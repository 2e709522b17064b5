"""Natural time phrases → a UTC window. Pure; `now` is always passed in.

Understood: today, yesterday, this/last week, this/last month, this/last year, last/past N
hours/days/weeks/months/years, last/past 24/48 hours, "in <Month> <year>", "in <year>",
"<Month> <year>", "on <day> <Month> <year>" / "<Month> <day>, <year>". Anything else is
reported as not understood (the caller says so in the response), never silently dropped.
"""

import calendar
import re
from datetime import UTC, datetime, timedelta

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
UNIT_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "month": 30, "year": 365}
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"

Window = tuple[datetime, datetime]


def _day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_window(year: int, month: int) -> Window:
    start = datetime(year, month, 1, tzinfo=UTC)
    last = calendar.monthrange(year, month)[1]
    return start, datetime(year, month, last, 23, 59, 59, 999999, tzinfo=UTC)


def _year_window(year: int) -> Window:
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def _day_window(year: int, month: int, day: int) -> Window:
    start = datetime(year, month, day, tzinfo=UTC)
    return start, start + timedelta(days=1) - timedelta(microseconds=1)


def _relative(phrase: str, now: datetime) -> Window | None:
    today = _day_start(now)
    fixed = {
        "today": (today, now),
        "this day": (today, now),
        "yesterday": (today - timedelta(days=1), today - timedelta(microseconds=1)),
        "this week": (today - timedelta(days=today.weekday()), now),
        "this month": (today.replace(day=1), now),
        "this year": (today.replace(month=1, day=1), now),
        "last week": (now - timedelta(days=7), now),
        "past week": (now - timedelta(days=7), now),
        "last month": (now - timedelta(days=30), now),
        "past month": (now - timedelta(days=30), now),
        "last year": (now - timedelta(days=365), now),
        "past year": (now - timedelta(days=365), now),
    }
    if phrase in fixed:
        return fixed[phrase]
    match = re.fullmatch(r"(?:last|past)\s+(\d{1,4})\s+(hour|day|week|month|year)s?", phrase)
    if match:
        return now - timedelta(days=int(match.group(1)) * UNIT_DAYS[match.group(2)]), now
    return None


def _calendar(phrase: str) -> Window | None:
    text = re.sub(r"^(in|on|during)\s+", "", phrase)
    if match := re.fullmatch(_MONTH + r"\s+(\d{4})", text):
        return _month_window(int(match.group(2)), MONTHS[match.group(1)])
    if match := re.fullmatch(r"(\d{4})", text):
        return _year_window(int(match.group(1)))
    if match := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(\d{4})", text):
        return _day_window(int(match.group(3)), MONTHS[match.group(2)], int(match.group(1)))
    if match := re.fullmatch(_MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text):
        return _day_window(int(match.group(3)), MONTHS[match.group(1)], int(match.group(2)))
    return None


def parse_time_phrase(phrase: str, now: datetime) -> Window | None:
    """The window a phrase names, or None if it is not understood."""
    text = " ".join(phrase.lower().strip().split())
    if not text:
        return None
    try:
        return _relative(text, now) or _calendar(text)
    except ValueError:  # e.g. 31 February
        return None
