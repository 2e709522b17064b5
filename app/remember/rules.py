"""The no-LLM extractor: first-person statements → standalone third-person facts.

Precision over recall: a clause yields a fact only when it opens with a known first-person
pattern ("I live in …", "my favorite X is …"), in a sentence that is not a question, a
hypothetical, hedged or reported speech. Relative dates resolve against the turn's timestamp and
are written into the content as absolute dates ("yesterday" → "on 14 March 2024").
CPU-bound (spaCy): callers on the event loop run it in a thread.
"""

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum

from dateutil import parser as date_parser
from spacy.tokens import Doc, Span, Token

from app.models import MemoryType
from app.nlp import load_nlp
from app.remember.facts import ASSISTANT, USER, ExtractedFact, Turn


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- Dates ------------------------------------------------------------------------------------

MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|(?-i:May)|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
                "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
                "twelve": 12}  # fmt: skip
NUMBER = r"(?:\d{1,3}|" + "|".join(NUMBER_WORDS) + ")"
DAY_MONTH = rf"(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{MONTH})"
MONTH_DAY = rf"(?P<month>{MONTH})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?"
APPROX = r"(?P<approx>(?:about|around|almost|nearly|over|roughly|like|more than|less than)\s+)?"
YEAR = r"(?:,?\s+(?P<year>(?:19|20)\d{2}))?"
RELATIVE_DAYS = {"the day before yesterday": -2, "yesterday": -1, "last night": -1,
                 "earlier today": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
                 "today": 0, "tonight": 0, "tomorrow": 1, "the day after tomorrow": 2}  # fmt: skip

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


def _explicit(m: re.Match[str], today: date, future: bool) -> Resolved | None:
    day = _calendar_day(m, today, future)
    return _on_day(day) if day else None


def _week_of(m: re.Match[str], today: date, future: bool) -> Resolved | None:
    day = _calendar_day(m, today, future)
    return _in_week(day) if day else None


def _weekend_of(m: re.Match[str], today: date, future: bool) -> Resolved | None:
    day = _calendar_day(m, today, future)
    return _on_weekend(day) if day else None


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


def _count(m: re.Match[str], today: date, future: bool) -> Resolved:
    """N units from today: "3 days ago", "in two weeks"."""
    n = int(m["n"]) if m["n"].isdigit() else NUMBER_WORDS[m["n"].lower()]
    return _shift(today, m["unit"].lower(), -n if m.re is AGO else n)


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
    (WEEK_OF, _week_of),
    (WEEKEND_OF, _weekend_of),
    (RELATIVE_DAY, _relative_day),
    (QUALIFIED_WEEKDAY, _weekday),
    (QUALIFIED_PERIOD, _period),
    (AGO, _count),
    (IN_N, _count),
    (DAY_MONTH_DATE, _explicit),
    (MONTH_DAY_DATE, _explicit),
    (ISO_DATE, _explicit),
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
        if resolved:
            first, last, phrase = resolved
            if "approx" in pattern.groupindex and match["approx"]:
                phrase = "around " + phrase.split(" ", 1)[1]
            return When(first, last, phrase, start=match.start(), end=match.end())
    return None


# --- Sentences and clauses --------------------------------------------------------------------

FIRST_PERSON = re.compile(r"\b(?:I|i|my|My|MY)\b")
HYPOTHETICAL_OR_HEDGED = re.compile(
    r"\b(?i:if|unless|would|wouldn't|could|couldn't|should|might|maybe|perhaps|wish|suppose|"
    r"imagine|pretend|hypothetically|someday|probably|possibly|think|guess|wonder|whether|"
    r"not sure|kind of|kinda|sort of)\b|\bmay\b|(?i:'d)\b"
)
REPORTED = re.compile(
    r"\b(?:said|says|say|told|tells|tell|asked|asks|according to|claim\w*)\b", re.I
)
QUOTES = re.compile(r"[\"“”«»]")
# Clauses end at commas, semicolons and dashes, and where "and/but/so…" introduces "I" or "my".
CLAUSE_BREAK = re.compile(
    r"\s*\n\s*|\s*[,;:](?:\s+|$)|\s+[-–—]+\s+"
    r"|\s+(?P<conj>and|but|so|because|plus)\s+(?=(?:I|i|my|My)\b)"
)
# A clause cut at a comma after one of these is unfinished ("creating a safe, inviting place").
DANGLING_TAGS = frozenset({"JJ", "DT", "IN", "CC", "PRP$"})
LEAD_IN = re.compile(
    r"^(?:(?:oh|ah|well|yeah|yes|yep|yup|no|nah|so|and|but|also|actually|honestly|anyway|anyways|"
    r"btw|by the way|fun fact|ok|okay|haha|hah|lol|wow|hey|hi|hello|sure|right|true|great|cool|"
    r"nice|awesome|thanks|thank you|um|uh|hmm|now|plus|to be honest|tbh|in fact|indeed|"
    r"personally|just so you know|guess what)\b[\s,!.:;-]*)+",
    re.I,
)
# Emoji and other symbols around a clause (quotation marks stay: a quote is not a statement).
EDGE_SYMBOLS = re.compile(r"^[^\w\"“”«»]+|[^\w\"“”«»)]+$")
VOCATIVE = re.compile(r"^[A-Z][a-z]+,\s+(?=(?:I|my)\b)")
# A value ends at punctuation or where a subordinate clause begins.
VALUE_END = re.compile(
    r"\s*[,;!?()\[\]]|:(?:\s|$)|\s+[-–—]\s+|\s+(?:because|since|but|when|whenever|while|although|though|"
    r"which|who|whereas|unless|until|except|and\s+(?:I|my|it|he|she|they|we|you|that|this|"
    r"there))\b",
    re.I,
)
TRAILING_FILLER = re.compile(
    r"(?:\s+(?:a lot|so much|very much|too|as well|now|right now|these days|nowadays|currently|"
    r"lol|haha|tbh|honestly|actually|though|anyway|really))+$",
    re.I,
)
# Words that make a value depend on context we do not have, or negate it.
UNRESOLVED_WORDS = _words(
    "it its this that these those he him his she her hers they them their theirs you your yours "
    "we us our ours there here someone somebody something anything everything nothing none "
    "nobody not no never i i'm i've i'd i'll myself"
)
OPENING_WORDS_REJECTED = _words("how what when where why who whom which if whether both all")
CLOSING_WORDS_REJECTED = _words("to a an the of for with and or but at in on by from my about")
MAX_VALUE_WORDS = 8
MAX_REST_WORDS = 12


@dataclass(frozen=True)
class Clause:
    """One clause of a sentence, prepared for the patterns: date removed, lead-in stripped."""

    text: str
    span: Span  # the clause in the parsed turn (for tags and entities)
    when: When | None
    subject: str
    turn: Turn

    @property
    def name(self) -> str:
        return "User" if self.subject == USER else "Assistant"


def is_statement(sentence: str) -> bool:
    """False for questions, hypotheticals, hedges and reported speech."""
    return not (
        "?" in sentence or HYPOTHETICAL_OR_HEDGED.search(sentence) or REPORTED.search(sentence)
    )


def _span(sentence: Span, start: int, end: int) -> Span | None:
    offset = sentence.start_char
    return sentence.doc.char_span(offset + start, offset + end, alignment_mode="expand")


def _pieces(sentence: Span) -> Iterator[tuple[int, int, bool]]:
    """(start, end, complete) of each piece between clause breaks."""
    text, start = sentence.text, 0
    for brk in CLAUSE_BREAK.finditer(text):
        piece = _span(sentence, start, brk.start())
        if brk["conj"] and piece is not None and not any(t.pos_ in ("VERB", "AUX") for t in piece):
            continue  # "My mom and I made dinner": a compound subject, not two clauses
        last = piece[-1] if piece else None
        # The tagger takes some names for adjectives ("I'm Ava, your assistant"): lower case only.
        complete = not (last and "," in brk[0] and last.tag_ in DANGLING_TAGS and last.is_lower)
        yield start, brk.start(), complete
        start = brk.end()
    yield start, len(text), True


def clause_spans(sentence: Span) -> Iterator[Span]:
    """The first-person clauses of a sentence, outside quotation marks.

    Pieces before the first one (a lead-in, a vocative, a date: "Last Friday, I …") stay with
    it; pieces after a clause without "I" or "my" are its tail and are dropped.
    """
    text, seen_clause, prefix_start = sentence.text, False, None
    for start, end, complete in _pieces(sentence):
        if not FIRST_PERSON.search(text[start:end]):
            if not seen_clause and prefix_start is None:
                prefix_start = start
            continue
        begin = start if seen_clause or prefix_start is None else prefix_start
        seen_clause = True
        inside_quotes = len(QUOTES.findall(text[:begin])) % 2 == 1
        span = _span(sentence, begin, end)
        if complete and not inside_quotes and span is not None:
            yield span


def prepare(span: Span, subject: str, turn: Turn) -> Clause:
    """Removes the date expression and any lead-in ("Oh, well, …") from a clause."""
    text = span.text
    # Without a past-tense verb, an ambiguous date ("on Monday", "March 3") is the next one.
    future = not any(token.tag_ == "VBD" for token in span)
    when = find_date(text, turn.timestamp, future=future)
    if when:
        text = f"{text[: when.start]} {text[when.end :]}"
    text = re.sub(r"\s+", " ", text).strip(" ,;:-–—")
    text = EDGE_SYMBOLS.sub("", text)
    text = VOCATIVE.sub("", LEAD_IN.sub("", text))
    text = re.sub(r"\s+([,.!;:])", r"\1", text).rstrip(" .!;:,-–—~*)(")
    text = TRAILING_FILLER.sub("", text)
    return Clause(text, span, when, subject, turn)


# --- Values -----------------------------------------------------------------------------------


def clean_value(raw: str, max_words: int = MAX_VALUE_WORDS) -> str | None:
    """The value cut at the end of its phrase, or None when it is vague, negated or too long."""
    value = VALUE_END.split(raw, maxsplit=1)[0]
    value = TRAILING_FILLER.sub("", value).strip(" .!~*'\"")
    words = value.lower().split()
    if not words or len(words) > max_words or words[0] in OPENING_WORDS_REJECTED:
        return None
    if words[-1] in CLOSING_WORDS_REJECTED:
        return None
    if UNRESOLVED_WORDS & {w.strip(".,!'\"") for w in words} or "n't" in value:
        return None
    return value


def third_person(text: str, name: str) -> str:
    """`my` → `User's`, `me`/`myself` → `User` (for the rest of a clause after its verb)."""
    text = re.sub(r"\b(?:my|mine)\b", f"{name}'s", text, flags=re.I)
    return re.sub(r"\b(?:me|myself)\b", name, text, flags=re.I)


def third_person_verb(verb: str) -> str:
    """Verb agreement for a third-person subject: live → lives, go → goes, try → tries."""
    lowered = verb.lower()
    irregular = {"am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "go": "goes"}
    if lowered in irregular:
        return irregular[lowered]
    if " " in lowered or lowered.endswith("n't"):
        return verb
    if re.search(r"[^aeiou]y$", lowered):
        return verb[:-1] + "ies"
    if re.search(r"(?:s|sh|ch|x|z|o)$", lowered):
        return verb + "es"
    return verb + "s"


def slot_key(value: str) -> str:
    """The comparable form of a value: lower case, no article, single spaces."""
    key = re.sub(r"^(?:the|a|an|some)\s+", "", value.strip().lower())
    return re.sub(r"\s+", " ", key).strip(" .!")


NAME_WORD = re.compile(r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?")
NOT_NAMES = _words(
    "sorry fine good great okay ok sure back here home done ready happy glad excited tired busy "
    "new single married free hungry late early alright well"
)
PLACE_CONNECTORS = _words("of de del la le upon am on the and")


def person_name(raw: str) -> str | None:
    """One to three capitalised words that are not a common adjective."""
    words = (clean_value(raw, max_words=3) or "").split()
    if not words or not all(NAME_WORD.fullmatch(w) for w in words):
        return None
    return None if words[0].lower() in NOT_NAMES else " ".join(words)


def place_name(raw: str) -> str | None:
    """The leading capitalised run of a value ("Prague with my wife" → "Prague")."""
    words = (clean_value(raw, max_words=12) or "").split()
    kept = words[:1] if words and words[0].lower() == "the" else []
    for word in words[len(kept) :]:
        if not (word[:1].isupper() or (kept and word.lower() in PLACE_CONNECTORS)):
            break
        kept.append(word)
    while kept and kept[-1].lower() in PLACE_CONNECTORS:
        kept.pop()
    has_name = any(w[:1].isupper() for w in kept)
    return " ".join(kept) if has_name and len(kept) <= 5 else None


def token_for(span: Span, word: str) -> Token | None:
    """The first token of the clause spelled `word`."""
    return next((t for t in span if t.lower_ == word.lower()), None)


def tagged(span: Span, word: str, *tags: str) -> bool:
    token = token_for(span, word)
    return token is not None and token.tag_ in tags


def is_person_entity(span: Span, name: str) -> bool:
    return any(ent.label_ == "PERSON" and name in ent.text for ent in span.doc.ents)


# --- Patterns ---------------------------------------------------------------------------------

AM = r"(?:'m|\s+am)"
NOW = r"(?:(?:currently|still|now|also)\s+)?"
INTENSIFIERS = (
    r"(?:(?:really|truly|absolutely|totally|just|also|still|do|definitely|genuinely|actually|"
    r"especially|so|particularly|simply|seriously)\s+)*"
)
RELATIONS = (
    r"wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|son|daughter|brother|sister|mom|"
    r"mother|dad|father|grandma|grandmother|grandpa|grandfather|best friend|baby"
)
PETS = (
    r"dog|cat|puppy|kitten|parrot|hamster|rabbit|bunny|bird|fish|horse|turtle|tortoise|snake|"
    r"lizard|guinea pig|ferret"
)
COUNTED = (
    rf"(?:{PETS})s?|puppies|kids?|children|child|sons?|daughters?|brothers?|sisters?|siblings?"
)
OCCUPATIONS = (
    r"engineer|developer|programmer|teacher|nurse|doctor|physician|surgeon|lawyer|attorney|"
    r"designer|artist|painter|writer|author|journalist|editor|student|accountant|manager|"
    r"scientist|researcher|chef|cook|baker|barista|waiter|waitress|bartender|photographer|"
    r"musician|singer|architect|consultant|analyst|pharmacist|dentist|therapist|counselor|"
    r"counsellor|psychologist|social worker|firefighter|police officer|pilot|professor|lecturer|"
    r"mechanic|electrician|plumber|carpenter|farmer|veterinarian|librarian|entrepreneur|"
    r"freelancer|paramedic|translator|cashier|realtor|contractor|intern|tutor|coach|dancer|actor|"
    r"actress|instructor|technician|administrator|clerk|receptionist|officer"
)
WEEKDAY_NAMES = "|".join(WEEKDAYS)
FREQUENCY = (
    rf"(?:every|each)\s+(?:single\s+)?(?:day|morning|afternoon|evening|night|week|weekend|month|"
    rf"year|summer|winter|spring|fall|autumn|{WEEKDAY_NAMES})|on\s+(?:weekends|weekdays|"
    rf"(?:{WEEKDAY_NAMES})s)|daily|weekly|(?:once|twice|three times)\s+a\s+(?:day|week|month|year)"
)
EVENT_NOUNS = (
    r"appointment|meeting|interview|exam|test|flight|trip|surgery|operation|presentation|"
    r"deadline|date|party|concert|game|match|race|recital|wedding|conference|class|lesson|"
    r"check-?up|show|performance|tournament|competition|marathon|audition"
)

NAME_IS = re.compile(r"my\s+name(?:\s+is|'s)\s+(?P<value>.+)", re.I)
CALL_ME = re.compile(r"(?:you\s+can\s+|please\s+)?call\s+me\s+(?P<value>.+)", re.I)
NAME_INTRO = re.compile(
    r"I(?:'m|\s+am)\s+(?P<value>[A-Za-z][\w'-]*)"
    r"(?P<role>,?\s+(?:your|an?)\s+(?:[\w-]+\s+){0,2}assistant)?",
    re.I,
)
ASSISTANT_NAMED = re.compile(
    r"I(?:'m|\s+am)\s+(?:an?|your)\s+(?:[\w-]+\s+){0,3}?assistant\s+(?:named|called)\s+(?P<value>.+)",
    re.I,
)
AGE = re.compile(rf"I{AM}\s+(?P<value>\d{{1,3}})(?:\s+years?\s+old|\s+y/?o)?", re.I)
TURNED = re.compile(r"I\s+(?:just\s+)?turned\s+(?P<value>\d{1,3})", re.I)
FAVORITE = re.compile(
    r"my\s+(?:all[- ]time\s+|absolute\s+|very\s+)?favou?rite\s+(?P<thing>[a-z]+(?:\s+[a-z]+){0,2}?)"
    r"\s+(?:is|are|has\s+to\s+be)\s+(?P<value>.+)",
    re.I,
)
FAVORITE_INVERTED = re.compile(
    r"(?P<value>[\w'&.-]+(?:\s+[\w'&.-]+){0,5}?)\s+(?:is|are)\s+my\s+"
    r"(?:all[- ]time\s+|absolute\s+)?favou?rite\s+(?P<thing>[a-z]+(?:\s+[a-z]+){0,2})",
    re.I,
)
BIRTHDAY = re.compile(r"my\s+birthday\s+is", re.I)
BORN = re.compile(r"I\s+was\s+born", re.I)
BORN_IN = re.compile(r"I\s+was\s+born\s+(?:and\s+raised\s+)?in\s+(?P<value>.+)", re.I)
MY_ATTRIBUTE = re.compile(
    r"my\s+(?P<attr>job|occupation|profession|hometown|nationality|major)\s+is\s+(?P<value>.+)",
    re.I,
)
RELATION_NAMED = re.compile(
    rf"my\s+(?P<rel>{RELATIONS}|{PETS})(?:'s\s+name\s+is|\s+is\s+(?:called|named))\s+(?P<value>.+)",
    re.I,
)
SPOUSE_IS = re.compile(
    r"my\s+(?P<rel>wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?)\s+is\s+(?P<value>.+)",
    re.I,
)
HAVE = re.compile(
    rf"I\s+(?:have|'ve\s+got|have\s+got)\s+(?P<count>an?|one|two|three|four|five|six|[1-9])\s+"
    rf"(?P<kind>{COUNTED})(?:\s+(?:named|called)\s+(?P<names>.+))?",
    re.I,
)
STATUS = re.compile(
    rf"I{AM}\s+(?:(?:happily|recently|now|newly)\s+)?"
    r"(?P<value>married|single|engaged|divorced|widowed|separated)(?:\s+to\s+(?P<partner>.+))?",
    re.I,
)
GOT_STATUS = re.compile(
    r"I\s+(?:(?:just|finally|recently)\s+)?got\s+(?P<value>married|engaged|divorced)"
    r"(?:\s+to\s+(?P<partner>.+))?",
    re.I,
)
DIET = re.compile(
    rf"I{AM}\s+(?:an?\s+)?(?:(?:strict|full|lifelong)\s+)?"
    r"(?P<value>vegetarian|vegan|pescatarian|pescetarian)",
    re.I,
)
CONDITION = re.compile(
    rf"I{AM}\s+(?P<value>lactose[- ]intolerant|gluten[- ]intolerant|diabetic|celiac|coeliac|"
    r"asthmatic|colou?r[- ]blind|epileptic)",
    re.I,
)
ALLERGIC = re.compile(
    rf"I{AM}\s+(?:(?:severely|very|deathly|really|super|highly)\s+)?allergic\s+to\s+(?P<value>.+)",
    re.I,
)
ALLERGY = re.compile(
    r"I\s+have\s+(?:an?\s+)?(?:(?:severe|bad|mild)\s+)?(?P<value>[a-z]+(?:\s+[a-z]+)?)\s+allerg(?:y|ies)",
    re.I,
)
WORK_AT = re.compile(
    rf"I(?:\s+{NOW}work|{AM}\s+{NOW}working)\s+(?P<prep>at|for)\s+(?P<value>.+)", re.I
)
WORK_AS = re.compile(
    rf"I(?:\s+{NOW}work|{AM}\s+{NOW}working)\s+as\s+(?P<value>.+?)(?P<rest>\s+(?:at|for|in)\s+.+)?",
    re.I,
)
JOB = re.compile(
    rf"I{AM}\s+{NOW}(?P<article>an?)\s+(?P<value>(?:[\w-]+\s+){{0,3}}?(?:{OCCUPATIONS}))"
    r"(?P<rest>\s+(?:at|for|in)\s+.+)?",
    re.I,
)
LIVE_IN = re.compile(rf"I(?:\s+{NOW}(?:live|reside)|{AM}\s+{NOW}living)\s+in\s+(?P<value>.+)", re.I)
MOVED = re.compile(
    r"I\s+(?:(?:just|recently|finally|also|then)\s+)?(?:moved|relocated)\s+(?:back\s+)?to\s+"
    r"(?P<value>.+)",
    re.I,
)
FROM = re.compile(
    rf"I(?:{AM}\s+(?:originally\s+)?from|\s+(?:originally\s+)?come\s+from)\s+(?P<value>.+)", re.I
)
GREW_UP = re.compile(r"I\s+grew\s+up\s+in\s+(?P<value>.+)", re.I)
LIKE = re.compile(
    rf"I\s+{INTENSIFIERS}(?P<verb>like|love|enjoy|adore|prefer|hate|dislike|detest|loathe|"
    r"can't\s+stand|cannot\s+stand)\s+(?P<value>.+)",
    re.I,
)
FAN = re.compile(
    rf"I{AM}\s+{INTENSIFIERS}(?P<phrase>(?:an?\s+)?(?:(?:huge|big|massive|great|long-?time)\s+)?"
    r"(?:fan|lover)\s+of|into|passionate\s+about|obsessed\s+with|crazy\s+about)\s+(?P<value>.+)",
    re.I,
)
GOING_TO = re.compile(rf"I{AM}\s+(?:going\s+to|gonna)\s+(?P<rest>.+)", re.I)
PLANNING = re.compile(rf"I(?:{AM}\s+planning|\s+plan|\s+intend)\s+to\s+(?P<rest>.+)", re.I)
WILL = re.compile(r"I(?:'ll|\s+will)\s+(?P<rest>.+)", re.I)
PROGRESSIVE = re.compile(rf"I{AM}\s+(?P<verb>[a-z]+ing)(?P<rest>(?:\s+.+)?)", re.I)
APPOINTMENT = re.compile(
    r"I\s+(?:have|'ve\s+got|have\s+got)\s+(?P<rest>(?:an?|my|another)\s+.+)", re.I
)
HABIT_ADVERB = re.compile(
    r"I\s+(?P<adv>usually|always|often|normally|typically|regularly|generally|frequently)\s+"
    r"(?P<verb>[a-z]+)(?P<rest>(?:\s+.+)?)",
    re.I,
)
HABIT_FREQUENCY = re.compile(
    rf"(?:(?P<lead>{FREQUENCY}),?\s+)?I\s+(?P<verb>[a-z]+)\s+(?P<rest>.+)", re.I
)
EVENT_ADVERBS = r"(?:(?:just|finally|also|actually|recently|first|even|then)\s+)?"
EVENT = re.compile(rf"I\s+{EVENT_ADVERBS}(?P<verb>[a-z]+)(?P<rest>(?:\s+.+)?)", re.I)
# "My mom and I made dinner last night" → "User and User's mom made dinner on …".
COMPOUND_EVENT = re.compile(
    r"(?P<who>(?:my|some|a\s+few|a\s+couple\s+of|two|three)\s+[\w' -]{1,40}?)\s+and\s+I\s+"
    rf"{EVENT_ADVERBS}(?P<verb>[a-z]+)(?P<rest>(?:\s+.+)?)",
    re.I,
)
FREQUENCY_RE = re.compile(rf"\b(?:{FREQUENCY})\b", re.I)
EVENT_NOUN_END = re.compile(rf"\b(?:{EVENT_NOUNS})s?$", re.I)
# Past-tense verbs that report thoughts or speech rather than something that happened.
NON_EVENT_VERBS = _words(
    "said told asked thought felt wondered guessed meant forgot heard knew wanted wished hoped "
    "realized realised noticed figured mentioned decided used supposed"
)
# Progressive forms that describe a state, not an arrangement ("I'm feeling better tomorrow").
STATE_VERBS = _words("feeling doing thinking hoping wondering trying looking getting")
NEGATIVE_LIKES = _words("hate dislike detest loathe")
# "I love the colors!": a reaction to something shared in the conversation, not a preference.
REACTION = re.compile(
    r"^the\b.*\b(?:idea|thought|way|looks?|colou?rs?|vibes?|design|pic|photo|picture|one|part|"
    r"sound|name|message|energy|feeling|details?|theme|concept|story|style|atmosphere|view|shot|"
    r"pattern|work|result|progress|tech|effort|song|video|movie|book|outfit|painting|pics|photos)\b",
    re.I,
)
COGNITIVE_INFINITIVES = re.compile(r"^to\s+(?:think|believe|imagine|say|know|hear|see)\b", re.I)
SPOUSES = frozenset({"wife", "husband"})
PARTNERS = re.compile(r"partner|girlfriend|boyfriend|fianc[eé]e?", re.I)
ATTRIBUTE_SLOTS = {"job": "job_title", "occupation": "job_title", "profession": "job_title"}
PLAN_TTL_DAYS = 90.0
PLAN_GRACE_DAYS = 30.0


# --- Kinds and facts --------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """What a rule's facts are: their type, weight and categories."""

    type: MemoryType
    importance: float
    confidence: float
    categories: tuple[str, ...]
    ttl_days: float | None = None


IDENTITY = Kind(MemoryType.FACT, 0.8, 0.8, ("personal",))
AGE_KIND = Kind(MemoryType.FACT, 0.6, 0.8, ("personal",), ttl_days=365.0)
FAMILY = Kind(MemoryType.FACT, 0.7, 0.8, ("personal",))
MILESTONE = Kind(MemoryType.EVENT, 0.7, 0.75, ("personal",))
PLACE = Kind(MemoryType.FACT, 0.7, 0.8, ("personal", "location"))
MOVE = Kind(MemoryType.EVENT, 0.7, 0.75, ("personal", "location"))
WORK = Kind(MemoryType.FACT, 0.7, 0.8, ("work",))
HEALTH = Kind(MemoryType.FACT, 0.8, 0.8, ("health",))
DIET_KIND = Kind(MemoryType.FACT, 0.7, 0.8, ("health", "preferences"))
LIKING = Kind(MemoryType.PREFERENCE, 0.5, 0.75, ("preferences",))
FAVORITE_KIND = Kind(MemoryType.PREFERENCE, 0.6, 0.8, ("preferences",))
PLAN = Kind(MemoryType.EVENT, 0.5, 0.7, ("plans",))
HABIT = Kind(MemoryType.HABIT, 0.5, 0.7, ("personal",))
EVENT_KIND = Kind(MemoryType.EVENT, 0.4, 0.7, ("events",))


class Dates(StrEnum):
    """What a date expression in the clause means for a rule."""

    NONE = "none"  # the rule does not apply to dated clauses
    ANY = "any"  # a date is required, past or future
    PAST = "past"
    MAYBE_PAST = "maybe_past"
    FUTURE = "future"  # strictly after the turn's day
    MAYBE_FUTURE = "maybe_future"


def date_fits(policy: Dates, when: When | None, today: date) -> bool:
    if when is None:
        return policy in (Dates.NONE, Dates.MAYBE_PAST, Dates.MAYBE_FUTURE)
    if policy in (Dates.PAST, Dates.MAYBE_PAST):
        return when.first <= today
    if policy in (Dates.FUTURE, Dates.MAYBE_FUTURE):
        return when.last > today
    return policy == Dates.ANY


def make_fact(
    c: Clause,
    kind: Kind,
    content: str,
    *,
    slot: str | None = None,
    value: str | None = None,
    ttl_days: float | None = None,
) -> ExtractedFact:
    text = re.sub(r"\s+", " ", content).strip()
    return ExtractedFact(
        content=text if text.endswith((".", "!")) else f"{text}.",
        subject=c.subject,
        type=kind.type,
        importance=kind.importance,
        confidence=kind.confidence,
        categories=list(kind.categories),
        ttl_days=ttl_days if ttl_days is not None else kind.ttl_days,
        event_time=c.when.moment if c.when else None,
        slot=slot,
        value=value,
        message_id=c.turn.message_id,
    )


def dated(c: Clause, text: str) -> str:
    return f"{text} {c.when.phrase}" if c.when else text


def indefinite(text: str, span: Span) -> str:
    """Demonstratives the parser reads as determiners become articles: "this pup" → "a pup".

    In chat they point at a shared photo; "this" on its own stays and makes the value vague.
    """
    determiners = {t.lower_ for t in span if t.lower_ in ("this", "these") and t.dep_ == "det"}

    def article(m: re.Match[str]) -> str:
        if m[1].lower() not in determiners:
            return m[0]
        if m[1].lower() == "these":
            return f"some {m[2]}"
        return f"{'an' if m[2][0].lower() in 'aeiou' else 'a'} {m[2]}"

    return re.sub(r"\b(this|these)\s+(\w+)", article, text, flags=re.I)


def rest_of(raw: str, c: Clause) -> str | None:
    """The rest of a clause after its verb, in third person ("" when there is none)."""
    if not raw.strip():
        return ""
    value = clean_value(indefinite(raw, c.span), max_words=MAX_REST_WORDS)
    return f" {third_person(value, c.name)}" if value else None


# --- Builders: one per pattern, each returns a fact or None -----------------------------------

Builder = Callable[[re.Match[str], Clause], ExtractedFact | None]


def introduces_self(m: re.Match[str], c: Clause, name: str) -> bool:
    """A user's "I'm Tom" needs the parser to see a person; the assistant introduces itself."""
    return c.subject == ASSISTANT or bool(m["role"]) or is_person_entity(c.span, name)


def name_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    raw = m["value"]
    name = person_name(raw.title() if m.re is NAME_IS else raw)
    if not name or (m.re is NAME_INTRO and not introduces_self(m, c, name)):
        return None
    return make_fact(c, IDENTITY, f"{c.name}'s name is {name}", slot="name", value=name)


def age_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    age = int(m["value"])
    if not 5 <= age <= 120:
        return None
    return make_fact(c, AGE_KIND, f"{c.name} is {age} years old", slot="age", value=str(age))


def favorite_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    value, thing = clean_value(m["value"], max_words=6), m["thing"].lower()
    if not value:
        return None
    if m.re is FAVORITE_INVERTED and not tagged(c.span, value.split()[0], "NNP", "NNPS"):
        value = value[:1].lower() + value[1:]  # "Pizza is my favorite food": not a name
    value = third_person(value, c.name)
    content = f"{c.name}'s favorite {thing} is {value}"
    return make_fact(c, FAVORITE_KIND, content, slot=f"favorite:{thing}", value=value)


def birthday_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    day = c.when.first
    content = f"{c.name}'s birthday is {day.day} {day:%B}"
    fact = make_fact(c, IDENTITY, content, slot="birthday", value=f"{day:%m-%d}")
    return replace(fact, event_time=None)  # a yearly date, not an event


def born_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    exact = c.when.first == c.when.last
    slot, value = ("birth_date", c.when.first.isoformat()) if exact else (None, None)
    return make_fact(c, IDENTITY, dated(c, f"{c.name} was born"), slot=slot, value=value)


def place_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    place = place_name(m["value"])
    if not place:
        return None
    templates = {
        LIVE_IN: ("lives in", "residence", PLACE),
        MOVED: ("moved to", "residence", MOVE),
        FROM: ("is from", "origin", PLACE),
        GREW_UP: ("grew up in", "hometown", PLACE),
        BORN_IN: ("was born in", "birthplace", PLACE),
    }
    phrase, slot, kind = templates[m.re]
    return make_fact(c, kind, dated(c, f"{c.name} {phrase} {place}"), slot=slot, value=place)


def attribute_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    value, attr = clean_value(m["value"], max_words=6), m["attr"].lower()
    if not value:
        return None
    value = third_person(value, c.name)
    slot = ATTRIBUTE_SLOTS.get(attr, attr)
    kind = WORK if slot == "job_title" else IDENTITY
    return make_fact(c, kind, f"{c.name}'s {attr} is {value}", slot=slot, value=slot_key(value))


def relation_slot(relation: str) -> str:
    relation = relation.lower()
    if relation in SPOUSES:
        return "spouse"
    if PARTNERS.fullmatch(relation):
        return "partner"
    return f"pet:{relation}" if re.fullmatch(PETS, relation) else f"family:{relation}"


def relation_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    name, relation = person_name(m["value"]), m["rel"].lower()
    if not name or (m.re is SPOUSE_IS and not is_person_entity(c.span, name)):
        return None
    verb = "is named" if m.re is RELATION_NAMED else "is"
    content = f"{c.name}'s {relation} {verb} {name}"
    return make_fact(c, FAMILY, content, slot=relation_slot(relation), value=name)


def names_list(raw: str | None) -> str | None:
    """Names joined by "and" ("Rex and Luna"), or None if any part is not a name."""
    parts = re.split(r"\s*,\s*|\s+and\s+", raw or "")
    names = [person_name(part) for part in parts]
    return " and ".join(names) if raw and all(names) else None


def have_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    count = m["count"].lower()
    names = names_list(m["names"])
    if m["names"] and not names:
        return None
    number = int(count) if count.isdigit() else NUMBER_WORDS[count]
    if names and len(names.split(" and ")) != number:
        names = None  # "two cats named Tom, …": the list went on past the clause
    kind_word = m["kind"].lower()
    singular = "child" if kind_word == "children" else re.sub(r"ies$", "y", kind_word)
    singular = singular if singular.endswith("y") else singular.removesuffix("s")
    family = "pet" if re.fullmatch(PETS, singular) else "family"
    named = f" named {names}" if names else ""
    content = f"{c.name} has {count} {kind_word}{named}"
    return make_fact(c, FAMILY, content, slot=f"{family}:{singular}", value=names or str(number))


def status_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    partner = person_name(m["partner"]) if m["partner"] else None
    if m["partner"] and not partner:
        return None
    status = m["value"].lower()
    verb, kind = ("got", MILESTONE) if m.re is GOT_STATUS else ("is", FAMILY)
    content = f"{c.name} {verb} {status}" + (f" to {partner}" if partner else "")
    return make_fact(c, kind, dated(c, content), slot="relationship_status", value=status)


def health_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    value = clean_value(m["value"], max_words=4)
    if not value:
        return None
    value = value.lower()
    if m.re is DIET:
        return make_fact(c, DIET_KIND, f"{c.name} is {value}", slot="diet", value=value)
    if m.re is CONDITION:
        return make_fact(c, HEALTH, f"{c.name} is {value}", slot=f"condition:{value}", value=value)
    if m.re is ALLERGIC:
        content = f"{c.name} is allergic to {value}"
    else:
        content = f"{c.name} has a {value} allergy"
    return make_fact(c, HEALTH, content, slot=f"allergy:{slot_key(value)}", value=value)


def work_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    value = clean_value(m["value"], max_words=6)
    if not value:
        return None
    value = third_person(value, c.name)
    if m.re is WORK_AT:
        content = f"{c.name} works {m['prep'].lower()} {value}"
        return make_fact(c, WORK, content, slot="employer", value=value)
    rest = rest_of(m["rest"] or "", c)
    content = f"{c.name} works as {value}{rest or ''}"
    return make_fact(c, WORK, content, slot="job_title", value=slot_key(value))


def job_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    title = m["value"].lower()
    rest = rest_of(m["rest"] or "", c)
    content = f"{c.name} is {m['article'].lower()} {title}{rest or ''}"
    return make_fact(c, WORK, content, slot="job_title", value=slot_key(title))


def like_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    value = clean_value(m["value"])
    if not value or COGNITIVE_INFINITIVES.match(value) or REACTION.match(value):
        return None
    value = third_person(value, c.name)
    if m.re is FAN:
        verb_phrase, polarity = f"is {m['phrase'].lower()}", "likes"
    else:
        verb = re.sub(r"\s+", " ", m["verb"].lower())
        verb_phrase = third_person_verb(verb)
        polarity = "dislikes" if verb in NEGATIVE_LIKES or "stand" in verb else "likes"
    content = f"{c.name} {verb_phrase} {value}"
    return make_fact(c, LIKING, content, slot=f"likes:{slot_key(value)}", value=polarity)


def plan_ttl(c: Clause) -> float:
    if c.when is None:
        return PLAN_TTL_DAYS
    today = c.turn.timestamp.date()
    return float((c.when.last - today).days) + PLAN_GRACE_DAYS


def plan_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    rest = rest_of(m["rest"], c)
    if not rest:
        return None
    if m.re is GOING_TO:
        first_word = rest.split()[0]
        verb = "plans to" if tagged(c.span, first_word, "VB") else "is going to"
    elif m.re is APPOINTMENT:
        if not EVENT_NOUN_END.search(rest):
            return None
        verb = "has"
    else:
        verb = {PLANNING: "plans to", WILL: "will"}[m.re]
    return make_fact(c, PLAN, dated(c, f"{c.name} {verb}{rest}"), ttl_days=plan_ttl(c))


def progressive_plan_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    verb, rest = m["verb"].lower(), rest_of(m["rest"], c)
    if rest is None or verb in STATE_VERBS or not tagged(c.span, verb, "VBG"):
        return None
    content = dated(c, f"{c.name} is {verb}{rest}")
    return make_fact(c, PLAN, content, ttl_days=plan_ttl(c))


def habit_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    verb, rest = m["verb"], rest_of(m["rest"], c)
    if rest is None or not tagged(c.span, verb, "VBP", "VB"):
        return None
    if m.re is HABIT_ADVERB:
        return make_fact(c, HABIT, f"{c.name} {m['adv'].lower()} {third_person_verb(verb)}{rest}")
    lead = f" {m['lead'].lower()}" if m["lead"] else ""
    if not (lead or FREQUENCY_RE.search(rest)):
        return None
    return make_fact(c, HABIT, f"{c.name} {third_person_verb(verb)}{rest}{lead}")


def event_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    verb, rest = m["verb"].lower(), rest_of(m["rest"], c)
    if rest is None or verb in NON_EVENT_VERBS or not tagged(c.span, verb, "VBD"):
        return None
    # "I was at the beach", not "I was bored" or "I was just remembering": states aren't events.
    if verb in ("was", "were") and not (rest and tagged(c.span, rest.split()[0], "IN")):
        return None
    who = c.name
    if m.re is COMPOUND_EVENT:
        if clean_value(m["who"], max_words=6) is None:
            return None
        who = f"{c.name} and {third_person(m['who'][0].lower() + m['who'][1:], c.name)}"
    return make_fact(c, EVENT_KIND, dated(c, f"{who} {verb}{rest}"))


# --- The rule table and the extractor ---------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    build: Builder
    dates: Dates = Dates.NONE


NAME_RULES = (
    Rule(NAME_IS, name_fact),
    Rule(CALL_ME, name_fact),
    Rule(NAME_INTRO, name_fact),
)
ASSISTANT_RULES = (*NAME_RULES, Rule(ASSISTANT_NAMED, name_fact))
# First match wins, so the specific patterns come before the general ones.
USER_RULES = (
    *NAME_RULES,
    Rule(AGE, age_fact),
    Rule(TURNED, age_fact, Dates.MAYBE_PAST),
    Rule(FAVORITE, favorite_fact),
    Rule(FAVORITE_INVERTED, favorite_fact),
    Rule(BIRTHDAY, birthday_fact, Dates.ANY),
    Rule(BORN, born_fact, Dates.PAST),
    Rule(BORN_IN, place_fact, Dates.MAYBE_PAST),
    Rule(MY_ATTRIBUTE, attribute_fact),
    Rule(RELATION_NAMED, relation_fact),
    Rule(SPOUSE_IS, relation_fact),
    Rule(HAVE, have_fact),
    Rule(STATUS, status_fact),
    Rule(GOT_STATUS, status_fact, Dates.MAYBE_PAST),
    Rule(DIET, health_fact),
    Rule(CONDITION, health_fact),
    Rule(ALLERGIC, health_fact),
    Rule(ALLERGY, health_fact),
    Rule(WORK_AT, work_fact),
    Rule(WORK_AS, work_fact),
    Rule(JOB, job_fact),
    Rule(LIVE_IN, place_fact),
    Rule(MOVED, place_fact, Dates.MAYBE_PAST),
    Rule(FROM, place_fact),
    Rule(GREW_UP, place_fact),
    Rule(LIKE, like_fact),
    Rule(FAN, like_fact),
    Rule(GOING_TO, plan_fact, Dates.FUTURE),
    Rule(PLANNING, plan_fact, Dates.MAYBE_FUTURE),
    Rule(WILL, plan_fact, Dates.FUTURE),
    Rule(APPOINTMENT, plan_fact, Dates.FUTURE),
    Rule(PROGRESSIVE, progressive_plan_fact, Dates.FUTURE),
    Rule(HABIT_ADVERB, habit_fact),
    Rule(HABIT_FREQUENCY, habit_fact),
    Rule(EVENT, event_fact, Dates.PAST),
    Rule(COMPOUND_EVENT, event_fact, Dates.PAST),
)
RULES_BY_ROLE = {USER: USER_RULES, ASSISTANT: ASSISTANT_RULES}


def clause_fact(c: Clause) -> ExtractedFact | None:
    """The fact of the first rule that matches the clause and accepts its date."""
    today = c.turn.timestamp.date()
    for rule in RULES_BY_ROLE[c.subject]:
        match = rule.pattern.fullmatch(c.text)
        if match and date_fits(rule.dates, c.when, today):
            fact = rule.build(match, c)
            if fact:
                return fact
    return None


def turn_facts(turn: Turn, doc: Doc) -> Iterator[ExtractedFact]:
    for sentence in doc.sents:
        if not is_statement(sentence.text):
            continue
        for span in clause_spans(sentence):
            fact = clause_fact(prepare(span, turn.role, turn))
            if fact:
                yield fact


def extract_facts_by_rules(turns: Sequence[Turn]) -> list[ExtractedFact]:
    """Facts stated in the first person by the user (and the assistant's own name), deduplicated."""
    candidates = [t for t in turns if t.role in RULES_BY_ROLE and FIRST_PERSON.search(t.content)]
    docs = load_nlp().pipe(t.content for t in candidates)
    facts: dict[tuple[str, str], ExtractedFact] = {}
    for turn, doc in zip(candidates, docs, strict=True):
        for fact in turn_facts(turn, doc):
            facts.setdefault((fact.subject, fact.content.casefold()), fact)
    return list(facts.values())
