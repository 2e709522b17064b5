"""The kinds of facts the rule-based reader writes (type, weight, categories) and the one way a
fact is made from a clause; shared by the template builders and the parse readers."""

import re
from dataclasses import dataclass

from spacy.tokens import Span

from app.models import MemoryType
from app.remember.facts import ExtractedFact
from app.remember.rules.clauses import Clause

DEMONSTRATIVES = frozenset({"this", "these"})


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
    determiners = {t.lower_ for t in span if t.lower_ in DEMONSTRATIVES and t.dep_ == "det"}

    def article(m: re.Match[str]) -> str:
        if m[1].lower() not in determiners:
            return m[0]
        if m[1].lower() == "these":
            return f"some {m[2]}"
        return f"{'an' if m[2][0].lower() in 'aeiou' else 'a'} {m[2]}"

    return re.sub(r"\b(this|these)\s+(\w+)", article, text, flags=re.I)
