"""Builders: one per pattern, each turns a match on a clause into a fact (or None).

A builder checks the value, writes the fact's content in the third person ("User lives in
Lisbon"), and gives it a `Kind` (type, importance, confidence, categories) and a slot.
"""

import re
from collections.abc import Callable
from dataclasses import replace

from app import lexicon as lex
from app.remember.attributes import ACTIVE, slot_for
from app.remember.facts import ASSISTANT, ExtractedFact
from app.remember.rules.clauses import Clause, is_person_entity, tagged
from app.remember.rules.dates import NUMBER_WORDS
from app.remember.rules.fact_kinds import (
    AGE_KIND,
    DIET_KIND,
    EVENT_KIND,
    FAMILY,
    FAVORITE_KIND,
    HABIT,
    HEALTH,
    IDENTITY,
    LIKING,
    MILESTONE,
    MOVE,
    PLACE,
    PLAN,
    WORK,
    dated,
    indefinite,
    make_fact,
)
from app.remember.rules.habits import habit_slot
from app.remember.rules.patterns import (
    ALLERGIC,
    APPOINTMENT,
    ATTRIBUTE_SLOTS,
    BORN_IN,
    COGNITIVE_INFINITIVES,
    COMPOUND_EVENT,
    CONDITION,
    DIET,
    EVENT_NOUN_END,
    FAN,
    FAVORITE_INVERTED,
    FREQUENCY_RE,
    FROM,
    GOING_TO,
    GOT_STATUS,
    GREW_UP,
    HABIT_ADVERB,
    HAVE_CONDITION,
    LIVE_IN,
    MOVED,
    NAME_INTRO,
    NAME_IS,
    NEGATIVE_LIKES,
    NON_EVENT_VERBS,
    PARTNERS,
    PETS,
    PLANNING,
    REACTION,
    RELATION_NAMED,
    SPOUSE_IS,
    SPOUSES,
    STATE_VERBS,
    WILL,
    WORK_AT,
)
from app.remember.rules.values import (
    MAX_REST_WORDS,
    clean_value,
    person_name,
    place_name,
    slot_key,
    third_person,
    third_person_verb,
)


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
    if c.when is None:
        return None
    day = c.when.first
    content = f"{c.name}'s birthday is {day.day} {day:%B}"
    fact = make_fact(c, IDENTITY, content, slot="birthday", value=f"{day:%m-%d}")
    return replace(fact, event_time=None)  # a yearly date, not an event


def born_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    if c.when is None:
        return None
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
    return " and ".join(n for n in names if n) if raw and all(names) else None


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
    if m.re is HAVE_CONDITION:
        said = clean_value(m["value"], max_words=4) or value  # "ADHD" keeps its capitals
        key = slot_for("condition", condition_key(value))
        return make_fact(c, HEALTH, f"{c.name} has {said}", slot=key, value=ACTIVE)
    if m.re is ALLERGIC:
        content = f"{c.name} is allergic to {value}"
    else:
        content = f"{c.name} has a {value} allergy"
    return make_fact(c, HEALTH, content, slot=f"allergy:{slot_key(value)}", value=value)


def condition_key(value: str) -> str:
    """A condition's key: its known word ("type 2 diabetes", "mild asthma": diabetes, asthma), as
    the parse-based reader keys it, else its name without "disease"/"syndrome"/"disorder"."""
    name = re.sub(r"\s+(?:disease|syndrome|disorder)$", "", value)
    last = name.split()[-1]
    return last if last in lex.CONDITIONS else name


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
    return make_fact(c, LIKING, content, slot=slot_for("likes", value), value=polarity)


PLAN_TTL_DAYS = 90.0
PLAN_GRACE_DAYS = 30.0


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
    slot = habit_slot(verb, rest)
    if m.re is HABIT_ADVERB:
        content = f"{c.name} {m['adv'].lower()} {third_person_verb(verb)}{rest}"
        return make_fact(c, HABIT, content, slot=slot, value=ACTIVE if slot else None)
    lead = f" {m['lead'].lower()}" if m["lead"] else ""
    if not (lead or FREQUENCY_RE.search(rest)):
        return None
    content = f"{c.name} {third_person_verb(verb)}{rest}{lead}"
    return make_fact(c, HABIT, content, slot=slot, value=ACTIVE if slot else None)


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
