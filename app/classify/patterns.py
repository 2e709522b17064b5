"""Classification by regular expressions: fast, free, and tried before any LLM.

The seed's seven types come first, in the seed's order, with the seed's patterns plus a few
from AutoMem's classifier (will use, frequently, instead of, monthly, at the time, ...) and a few
so that the seed's own examples match (imperative mood, every morning). Fact and Event, which
the seed lacks, sit between Insight and Context:
- after the seven, so "My favorite editor is Vim" stays a Preference rather than a Fact;
- Fact before Event, so "I was born on 3 May 1990" is a Fact, not a dated Event;
- both before Context, whose "when" and "during" match almost anything, so
  "When we went to Paris" is an Event. None of them match the seed's Context example.

Every pattern starts at a word boundary and ignores case. The first type with a match wins.
"""

import re

from app.classify.result import Classification, ClassificationStats
from app.models import MemoryType

ONE_MATCH_CONFIDENCE = 0.6
MAX_CONFIDENCE = 0.95

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"


def _compiled(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(rf"\b(?:{pattern})", re.IGNORECASE) for pattern in patterns)


PATTERNS: dict[MemoryType, tuple[re.Pattern[str], ...]] = {
    MemoryType.DECISION: _compiled(
        r"decided to", r"chose (\w+) over", r"going with", r"opted for", r"will use", r"settled on"
    ),
    MemoryType.PATTERN: _compiled(
        r"usually",
        r"typically",
        r"tend to",
        r"often",
        r"consistently",
        r"frequently",
        r"regularly",
    ),
    MemoryType.PREFERENCE: _compiled(
        r"prefer", r"like.*better", r"favou?rite", r"rather than", r"always use\b", r"instead of"
    ),
    MemoryType.STYLE: _compiled(
        # The seed prints "wrote.in.style"; AutoMem's pattern is wrote.*in.*style.
        r"wrote.*in.*style",
        r"communicated",
        r"formatted as",
        r"using.*tone",
        r"(?:imperative|active|passive) (?:mood|voice)",
        r"in an? \w+ tone",
    ),
    MemoryType.HABIT: _compiled(
        # "always use" is a Preference, so it is not a Habit.
        r"always\b(?!\s+use\b)",
        r"every time",
        r"daily",
        r"weekly",
        r"monthly",
        r"routine",
        r"habitually",
        r"every (?:morning|evening|night|day|week|month|weekday|weekend)\b",
    ),
    MemoryType.INSIGHT: _compiled(
        r"reali[sz]ed", r"discovered", r"learn(?:ed|t) that", r"figured out"
    ),
    MemoryType.FACT: _compiled(
        r"my \w+(?:['’]s \w+)? (?:is|are)\b",
        r"(?:is|are) (?:located|based|headquartered) in\b",
        r"was born\b",
        r"works? (?:at|for)\b",
        r"lives? in\b",
        r"(?:name|birthday|email|address|phone number) is\b",
    ),
    MemoryType.EVENT: _compiled(
        r"(?:meeting|call|appointment|interview|party|wedding|trip|flight|conference)"
        r" (?:on|at|with|tomorrow|today|tonight|yesterday|next|last)\b",
        r"went to\b",
        r"happened\b",
        r"(?:yesterday|tomorrow|tonight|last night)\b",
        r"(?:attended|visited|celebrated|graduated|got married|moved to|arrived)\b",
        rf"(?:last|next) (?:week|weekend|month|year|{_WEEKDAY})\b",
        rf"on (?:{_WEEKDAY}|{_DAY} (?:of )?{_MONTH}|{_MONTH} {_DAY}|\d{{4}}-\d\d-\d\d)\b",
        r"at \d{1,2}(?::\d\d)?\s?(?:am|pm)\b|at \d{1,2}:\d\d\b",
    ),
    MemoryType.CONTEXT: _compiled(
        r"during",
        r"while working on",
        r"in the context of",
        r"when",
        r"at the time",
        r"situation was",
    ),
}


def pattern_confidence(matches: int) -> float:
    """0.6 for one matching pattern; min(0.95, 0.6 + 0.1 × matches) for more."""
    if matches <= 1:
        return ONE_MATCH_CONFIDENCE
    return round(min(MAX_CONFIDENCE, ONE_MATCH_CONFIDENCE + 0.1 * matches), 2)


def classify_by_patterns(
    content: str, *, stats: ClassificationStats | None = None
) -> Classification | None:
    """The first type (in PATTERNS order) with a matching pattern, or None if none matches."""
    for memory_type, patterns in PATTERNS.items():
        matches = sum(1 for pattern in patterns if pattern.search(content))
        if matches:
            if stats is not None:
                stats.pattern_classifications += 1
            return Classification(memory_type, pattern_confidence(matches), "pattern")
    return None
