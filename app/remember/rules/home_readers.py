"""Readers of where the speaker lives and what they work with: homes, where they grew up, moves
(of home, or from one tool to another) and the tools they use (dispatched from readers.py)."""

from app.remember.facts import ExtractedFact
from app.remember.rules.fact_kinds import MOVE, PLACE, dated
from app.remember.rules.frames import Predicate, is_name, name_text, phrase, rest_text
from app.remember.rules.frames import pobjs as _pobjs
from app.remember.rules.reading import PAST_TAGS, fact, tool_fact, tool_of, who
from app.remember.rules.values import third_person_verb


def read_live(p: Predicate) -> list[ExtractedFact]:
    if p.verb.tag_ == "VBD" or p.negated or p.ended:
        return []
    places = [t for t in p.preps("in", "outside", "near") if is_name(t, p.lower_case)]
    if not places:
        return []
    place = name_text(places[0], p.lower_case)
    where = places[0].head.text.lower()  # "just outside Glasgow": the town is the home's value
    verb = f"is based {where}" if p.lemma == "base" else f"lives {where}"
    return [fact(p, PLACE, f"{who(p)} {verb} {place}", "residence", place)]


HOMES = frozenset({"flat", "house", "apartment", "room", "place", "cottage", "studio", "bedsit"})


def read_rent(p: Predicate) -> list[ExtractedFact]:
    """ "I rent a flat in Brighton", "we own a house in Leith": a home in the town."""
    if p.verb.tag_ == "VBD" or p.negated or p.ended:
        return []
    homes = [o for o in p.objects() if o.lemma_.lower() in HOMES]
    around = [t for h in homes for t in _pobjs(h, "in")] + (p.preps("in") if homes else [])
    places = [t for t in around if is_name(t, p.lower_case)]
    if not places:
        return []
    place = name_text(places[0], p.lower_case)
    verb = third_person_verb(p.verb.text.lower())
    content = f"{who(p)} {verb} {phrase(homes[0], preps=())} in {place}"
    return [fact(p, PLACE, content, "residence", place)]


def read_grow_up(p: Predicate) -> list[ExtractedFact]:
    """ "…, grew up in Hong Kong": where the speaker grew up (a fragment after a comma too)."""
    if p.negated or p.team:
        return []
    places = [t for t in p.preps("in") if is_name(t, p.lower_case)][:1]
    names = [name_text(t, p.lower_case) for t in places]
    return [fact(p, PLACE, f"User grew up in {name}", "hometown", name) for name in names]


def read_move(p: Predicate) -> list[ExtractedFact]:
    if p.verb.tag_ not in PAST_TAGS or p.negated:
        return []
    targets, sources = p.preps("to"), p.preps("from")
    sources += [c for c in p.verb.children if c.dep_ in ("npadvmod", "dobj") and tool_of(c)]
    if not targets:
        return []
    new_tool = tool_of(targets[0])
    if new_tool:
        old = f" from {phrase(sources[0])}" if sources else ""
        name, area = new_tool
        content = f"{who(p, tool=True)} moved{old} to {phrase(targets[0])}"
        return [tool_fact(p, dated(p.clause, content), name, area)]
    if not is_name(targets[0], p.lower_case):
        return []
    place = name_text(targets[0], p.lower_case)
    old = f" from {name_text(sources[0], p.lower_case)}" if sources else ""
    content = dated(p.clause, f"{who(p)} moved{old} to {place}")
    return [fact(p, MOVE, content, "residence", place)]


def read_use(p: Predicate) -> list[ExtractedFact]:
    if p.negated:
        return []
    found = []
    objects = p.objects()
    places = [*p.preps("on", "with", "in"), *(t for o in objects for t in _pobjs(o, "on", "in"))]
    for obj in [*objects, *places]:
        tool = tool_of(obj)
        if tool:
            verb = p.verb.text.lower()
            verb = third_person_verb(verb) if p.verb.tag_ == "VBP" and not p.team else verb
            found.append(tool_fact(p, f"{who(p, tool=True)} {verb} {rest_text(p.verb)}", *tool))
    return found
