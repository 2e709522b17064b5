"""Time phrases, for /remember and /recall alike: one reading of "last week".

Two uses share the same calendar:
- `find_date` (remember) finds the first relative or written date in a clause ("yesterday",
  "next Friday", "3 weeks ago", "14 March", "in 2019"), resolved against the turn's timestamp, as
  a `When`: the days it covers and how a fact's content says it ("on 14 March 2024", "in the week
  of 11 March 2024").
- `parse_time_phrase` (recall) reads a whole phrase (`time_query`) as a UTC window: today,
  yesterday, this/last week, this/last month, this/last year, past week/month/year, last/past N
  hours/days/weeks/months/years, "in <Month> <year>", "in <year>", "<Month> <year>", "on <day>
  <Month> <year>" / "<Month> <day>, <year>". Anything else is not understood (None), and the
  caller says so.

"last week", "last month" and "last year" are the calendar period before the current one (the
week from Monday to Sunday, the month, the year) in both; "past week", "past month" and "past
year" are the rolling 7, 30 and 365 days up to now; "this week" runs from Monday to now. Pure:
`now` is always passed in.
"""

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import partial

from dateutil import parser as date_parser

MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|(?-i:May)|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
NUMBER = r"(?:\d{1,3}|" + "|".join(NUMBER_WORDS) + ")"
DAY_MONTH = rf"(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{MONTH})"
MONTH_DAY = rf"(?P<month>{MONTH})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?"
APPROX = r"(?P<approx>(?:about|around|almost|nearly|over|roughly|like|more than|less than)\s+)?"
YEAR = r"(?:,?\s+(?P<year>(?:19|20)\d{2}))?"
RELATIVE_DAYS = {
    "the day before yesterday": -2,
    "yesterday": -1,
    "last night": -1,
    "earlier today": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
    "today": 0,
    "tonight": 0,
    "tomorrow": 1,
    "the day after tomorrow": 2,
}

WEEK_OF = re.compile(rf"\bin the week of (?:{DAY_MONTH}){YEAR}\b", re.I)
WEEKEND_OF = re.compile(rf"\bon the weekend of (?:{DAY_MONTH}){YEAR}\b", re.I)
RELATIVE_DAY = re.compile(
    r"\b(?P<rel>" + "|".join(sorted(RELATIVE_DAYS, key=len, reverse=True)) + r")\b", re.I
)
QUALIFIED_WEEKDAY = re.compile(
    rf"\b(?P<which>this past|this coming|last|next|this|on)\s+(?P<weekday>{'|'.join(WEEKDAYS)})\b",
    re.I,
)
QUALIFIED_PERIOD = re.compile(
    r"\b(?P<which>this past|this coming|last|next|this)\s+(?P<unit>week|weekend|month|year)\b",
    re.I,
)
# "on the 12th of next month", "the 3rd of this month": a day of a month named by its place.
DAY_OF_PERIOD = re.compile(
    r"\b(?:on\s+)?the\s+(?P<day>\d{1,2})(?:st|nd|rd|th)\s+of\s+(?P<which>next|this|last)\s+month\b",
    re.I,
)
AGO = re.compile(rf"\b{APPROX}(?P<n>{NUMBER})\s+(?P<unit>day|week|month|year)s?\s+ago\b", re.I)
IN_N = re.compile(rf"\bin\s+{APPROX}(?P<n>{NUMBER})\s+(?P<unit>day|week|month|year)s?\b", re.I)
DAY_MONTH_DATE = re.compile(rf"\b(?:on\s+)?(?:the\s+)?{DAY_MONTH}\b{YEAR}", re.I)
MONTH_DAY_DATE = re.compile(rf"\b(?:on\s+)?{MONTH_DAY}\b{YEAR}", re.I)
ISO_DATE = re.compile(r"\b(?:on\s+)?(?P<iso>\d{4}-\d{2}-\d{2})\b")
IN_MONTH = re.compile(rf"\bin\s+(?P<month>{MONTH})(?:\s+(?P<year>(?:19|20)\d{{2}}))?\b", re.I)
IN_YEAR = re.compile(r"\bin\s+(?P<year>(?:19|20)\d{2})\b", re.I)
PERIOD_STEPS = {"last": -1, "this past": -1, "next": 1}

Resolved = tuple[date, date, str]  # first day, last day, how the content says it


@dataclass(frozen=True)
class When:
    """A resolved date expression: the days it covers and how the content says it."""

    first: date
    last: date
    phrase: str  # "on 14 March 2024", "in the week of 11 March 2024", "in February 2024"
    start: int
    end: int

    @property
    def moment(self) -> datetime:
        return datetime.combine(self.first, time(), UTC)


def _day_name(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def _on_day(day: date) -> Resolved:
    return day, day, f"on {_day_name(day)}"


def _in_week(day: date) -> Resolved:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6), f"in the week of {_day_name(monday)}"


def _on_weekend(day: date) -> Resolved:
    saturday = day - timedelta(days=day.weekday()) + timedelta(days=5)
    return saturday, saturday + timedelta(days=1), f"on the weekend of {_day_name(saturday)}"


def _in_month(year: int, month: int) -> Resolved:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    first = date(year, month, 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    return first, following - timedelta(days=1), f"in {first:%B %Y}"


def _in_year(year: int) -> Resolved:
    return date(year, 1, 1), date(year, 12, 31), f"in {year}"


def _shift(today: date, unit: str, n: int) -> Resolved:
    """The day, week, weekend, month or year `n` units from today (negative: in the past)."""
    if unit == "day":
        return _on_day(today + timedelta(days=n))
    if unit in ("week", "weekend"):
        resolve = _in_week if unit == "week" else _on_weekend
        return resolve(today + timedelta(weeks=n))
    if unit == "month":
        return _in_month(today.year, today.month + n)
    return _in_year(today.year + n)


def _calendar_day(m: re.Match[str], today: date, future: bool) -> date | None:
    """A written date; without a year, the nearest one in the clause's direction."""
    if "iso" in m.re.groupindex:
        text, year = m["iso"], None
    else:
        text, year = f"{m['day']} {m['month']}", m["year"]
    try:
        day = date_parser.parse(text, default=datetime(today.year, 1, 1)).date()
        if year:
            return day.replace(year=int(year))
        if "iso" not in m.re.groupindex and (day < today if future else day > today):
            return day.replace(year=day.year + (1 if future else -1))
    except ValueError:  # "31 February", "29 February" in the wrong year
        return None
    return day


def _calendar(
    resolve: Callable[[date], Resolved],
) -> Callable[[re.Match[str], date, bool], Resolved | None]:
    """A resolver for a written date: the day it names (if it exists), then `resolve`."""

    def resolved(m: re.Match[str], today: date, future: bool) -> Resolved | None:
        day = _calendar_day(m, today, future)
        return resolve(day) if day else None

    return resolved


def _relative_day(m: re.Match[str], today: date, future: bool) -> Resolved:
    return _on_day(today + timedelta(days=RELATIVE_DAYS[m["rel"].lower()]))


def _weekday(m: re.Match[str], today: date, future: bool) -> Resolved:
    """last/next/this/on <weekday>; "last" and "next" never mean today."""
    target, which = WEEKDAYS.index(m["weekday"].lower()), m["which"].lower()
    ahead, behind = (target - today.weekday()) % 7, (today.weekday() - target) % 7
    offsets = {"last": -(behind or 7), "this past": -(behind or 7), "next": ahead or 7}
    default = ahead if future or which in ("this", "this coming") else -behind
    return _on_day(today + timedelta(days=offsets.get(which, default)))


def _period(m: re.Match[str], today: date, future: bool) -> Resolved:
    return _shift(today, m["unit"].lower(), PERIOD_STEPS.get(m["which"].lower(), 0))


def _day_of_month(m: re.Match[str], today: date, future: bool) -> Resolved | None:
    first, _, _ = _in_month(today.year, today.month + PERIOD_STEPS.get(m["which"].lower(), 0))
    try:
        return _on_day(first.replace(day=int(m["day"])))
    except ValueError:  # "the 31st of next month" in a 30-day month
        return None


def _count(m: re.Match[str], today: date, future: bool, *, sign: int = 1) -> Resolved:
    """N units from today: "in two weeks", or "3 days ago" (sign -1)."""
    n = int(m["n"]) if m["n"].isdigit() else NUMBER_WORDS[m["n"].lower()]
    return _shift(today, m["unit"].lower(), sign * n)


def _month(m: re.Match[str], today: date, future: bool) -> Resolved:
    month = date_parser.parse(m["month"].rstrip(".")).month
    year = int(m["year"]) if m["year"] else today.year
    if not m["year"] and (month < today.month if future else month > today.month):
        year += 1 if future else -1
    return _in_month(year, month)


def _year(m: re.Match[str], today: date, future: bool) -> Resolved:
    return _in_year(int(m["year"]))


# In priority order: the first pattern that matches and resolves wins.
DATE_RESOLVERS: tuple[tuple[re.Pattern[str], Callable[..., Resolved | None]], ...] = (
    (WEEK_OF, _calendar(_in_week)),
    (WEEKEND_OF, _calendar(_on_weekend)),
    (RELATIVE_DAY, _relative_day),
    (QUALIFIED_WEEKDAY, _weekday),
    (DAY_OF_PERIOD, _day_of_month),
    (QUALIFIED_PERIOD, _period),
    (AGO, partial(_count, sign=-1)),
    (IN_N, _count),
    (DAY_MONTH_DATE, _calendar(_on_day)),
    (MONTH_DAY_DATE, _calendar(_on_day)),
    (ISO_DATE, _calendar(_on_day)),
    (IN_MONTH, _month),
    (IN_YEAR, _year),
)


def find_date(text: str, now: datetime, *, future: bool) -> When | None:
    """The first date expression in `text`, resolved against `now`.

    Days are counted on the speaker's calendar: the date of `now` in its own UTC offset.
    """
    today = now.date()
    for pattern, resolve in DATE_RESOLVERS:
        match = pattern.search(text)
        resolved = resolve(match, today, future) if match else None
        if match and resolved:
            first, last, phrase = resolved
            if "approx" in pattern.groupindex and match["approx"]:
                phrase = "around " + phrase.split(" ", 1)[1]
            return When(first, last, phrase, start=match.start(), end=match.end())
    return None


# --- Whole phrases as windows (recall's time_query) ---------------------------------------------

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
UNIT_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "month": 30, "year": 365}
ROLLING = {"past week": 7, "past month": 30, "past year": 365}
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"

Window = tuple[datetime, datetime]


def _days_window(first: date, last: date | None, now: datetime) -> Window:
    """From the start of `first` to the end of `last` (None: up to now), in now's time zone."""
    zone = now.tzinfo or UTC
    start = datetime.combine(first, time(), zone)
    return start, now if last is None else datetime.combine(last, time.max, zone)


def _relative_window(phrase: str, now: datetime) -> Window | None:
    today = now.date()
    if phrase in ("today", "this day"):
        return _days_window(today, None, now)
    if phrase == "yesterday":
        return _days_window(today - timedelta(days=1), today - timedelta(days=1), now)
    if phrase in ROLLING:
        return now - timedelta(days=ROLLING[phrase]), now
    if match := QUALIFIED_PERIOD.fullmatch(phrase):
        unit, which = match["unit"].lower(), match["which"].lower()
        first, last, _ = _shift(today, unit, PERIOD_STEPS.get(which, 0))
        return _days_window(first, None if which == "this" else last, now)
    match = re.fullmatch(r"(?:last|past)\s+(\d{1,4})\s+(hour|day|week|month|year)s?", phrase)
    if match:
        return now - timedelta(days=int(match.group(1)) * UNIT_DAYS[match.group(2)]), now
    return None


def _written_window(phrase: str) -> Window | None:
    text = re.sub(r"^(in|on|during)\s+", "", phrase)
    if match := re.fullmatch(_MONTH + r"\s+(\d{4})", text):
        first, last, _ = _in_month(int(match.group(2)), MONTHS[match.group(1)])
    elif match := re.fullmatch(r"(\d{4})", text):
        first, last, _ = _in_year(int(match.group(1)))
    elif match := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(\d{4})", text):
        first = last = date(int(match.group(3)), MONTHS[match.group(2)], int(match.group(1)))
    elif match := re.fullmatch(_MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text):
        first = last = date(int(match.group(3)), MONTHS[match.group(1)], int(match.group(2)))
    else:
        return None
    return datetime.combine(first, time(), UTC), datetime.combine(last, time.max, UTC)


def parse_time_phrase(phrase: str, now: datetime) -> Window | None:
    """The window a phrase names, or None if it is not understood."""
    text = " ".join(phrase.lower().strip().split())
    if not text:
        return None
    try:
        return _relative_window(text, now) or _written_window(text)
    except ValueError:  # e.g. 31 February
        return None
