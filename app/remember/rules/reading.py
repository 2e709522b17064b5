"""What every reader shares: the kinds of fact, the third-person content, tools and endings."""

from collections.abc import Callable

from spacy.tokens import Token

from app import lexicon as lex
from app.remember.attributes import ACTIVE, ENDED, slot_for
from app.remember.facts import ExtractedFact
from app.remember.rules.fact_kinds import (
    EVENT_KIND,
    HABIT,
    IDENTITY,
    PLAN,
    WORK,
    Kind,
    dated,
    indefinite,
    make_fact,
)
from app.remember.rules.frames import (
    Predicate,
    name_text,
    phrase,
)
from app.remember.rules.values import third_person

Reader = Callable[[Predicate], list[ExtractedFact]]
SKILL = Kind(HABIT.type, 0.6, 0.75, ("personal", "skills"))
OWNS = Kind(IDENTITY.type, 0.5, 0.75, ("personal",))
TOOLING = Kind(WORK.type, 0.6, 0.75, ("work", "tools"))
STUDY = Kind(WORK.type, 0.7, 0.8, ("education",))
GOAL = Kind(PLAN.type, 0.6, 0.7, ("plans",))
PAST_TAGS = ("VBD", "VBN")


def fact(p: Predicate, kind: Kind, content: str, slot: str, value: str | None) -> ExtractedFact:
    text = third_person(indefinite(content, p.clause.span), "User")
    return make_fact(p.clause, kind, text, slot=slot, value=value)


def who(p: Predicate, tool: bool = False) -> str:
    if p.partner is not None:
        owned = any(c.dep_ == "poss" for c in p.partner.children)
        names = [c for c in p.partner.children if c.dep_ in ("appos", "compound")]
        text = f"{phrase(p.partner, preps=())}" + (f" {names[0].text}" if names and owned else "")
        return f"User and {text if owned else name_text(p.partner, p.lower_case)}"
    return "User's team" if (p.team and tool) else "User"


def tool_of(token: Token) -> tuple[str, str] | None:
    """(canonical name, area) of a known tool named by the token (or its compound)."""
    compounds = [t.lower_ for t in token.lefts if t.dep_ == "compound"][-1:]
    for name in (" ".join([*compounds, token.lower_]), token.lower_):
        if name in lex.TOOLS:
            return lex.TOOL_SPELLINGS.get(name, name), lex.TOOLS[name]
    return None


def tool_fact(p: Predicate, content: str, name: str, area: str) -> ExtractedFact:
    if area == "programming_language":
        return fact(p, TOOLING, content, slot_for(area, name), ACTIVE)
    return fact(p, TOOLING, content, slot_for("tool", area), name)


def ending(p: Predicate, content: str, attribute: str, item: str) -> ExtractedFact:
    return fact(p, EVENT_KIND, dated(p.clause, content), slot_for(attribute, item), ENDED)
