"""Builders: each turns a match on a clause into a fact (or None).

A builder checks the value, writes the fact's content in the third person ("User lives in
Lisbon"), and gives it a `Kind` (type, importance, confidence, categories) and a slot. What
differs between the patterns a builder serves (the phrase, the slot, the kind) is data of the
rule's row in extract.py, passed as keywords: no builder asks which pattern matched.
"""

import re
from collections.abc import Callable
from dataclasses import replace

from app import lexicon as lex
from app.remember.attributes import ACTIVE, slot_for
from app.remember.facts import ASSISTANT, ExtractedFact
from app.remember.rules.clauses import Clause, is_person_entity, tagged
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
    PLACE,
    PLAN,
    WORK,
    Kind,
    dated,
    indefinite,
    make_fact,
)
from app.remember.rules.habits import habit_slot
from app.remember.rules.patterns import (
    ATTRIBUTE_SLOTS,
    COGNITIVE_INFINITIVES,
    EVENT_NOUN_END,
    FREQUENCY_RE,
    NEGATIVE_LIKES,
    NON_EVENT_VERBS,
    PARTNERS,
    PETS,
    REACTION,
    SPOUSES,
    STATE_VERBS,
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

# "I was at the beach" is an event, "I was bored" a state: a past "be" needs a place after it.
PAST_BE = frozenset({"was", "were"})


def rest_of(raw: str, c: Clause) -> str | None:
    """The rest of a clause after its verb, in third person ("" when there is none)."""
    if not raw.strip():
        return ""
    value = clean_value(indefinite(raw, c.span), max_words=MAX_REST_WORDS)
    return f" {third_person(value, c.name)}" if value else None


# --- Builders: each returns a fact or None -----------------------------------------------------

Builder = Callable[[re.Match[str], Clause], ExtractedFact | None]


def introduces_self(m: re.Match[str], c: Clause, name: str) -> bool:
    """A user's "I'm Tom" needs the parser to see a person; the assistant introduces itself."""
    return c.subject == ASSISTANT or bool(m["role"]) or is_person_entity(c.span, name)


def name_fact(
    m: re.Match[str], c: Clause, *, title_case: bool = False, introduction: bool = False
) -> ExtractedFact | None:
    """`title_case`: "my name is tom" names Tom; `introduction`: "I'm Tom" must introduce."""
    raw = m["value"]
    name = person_name(raw.title() if title_case else raw)
    if not name or (introduction and not introduces_self(m, c, name)):
        return None
    return make_fact(c, IDENTITY, f"{c.name}'s name is {name}", slot="name", value=name)


def age_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    age = int(m["value"])
    if not 5 <= age <= 120:
        return None
    return make_fact(c, AGE_KIND, f"{c.name} is {age} years old", slot="age", value=str(age))


def favorite_fact(
    m: re.Match[str], c: Clause, *, value_first: bool = False
) -> ExtractedFact | None:
    value, thing = clean_value(m["value"], max_words=6), m["thing"].lower()
    if not value:
        return None
    if value_first and not tagged(c.span, value.split()[0], "NNP", "NNPS"):
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


def place_fact(
    m: re.Match[str], c: Clause, *, phrase: str, slot: str, kind: Kind = PLACE
) -> ExtractedFact | None:
    """ "lives in" Lisbon (`residence`), "moved to" (residence, a MOVE), "is from" (origin)…"""
    place = place_name(m["value"])
    if not place:
        return None
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


def relation_fact(
    m: re.Match[str], c: Clause, *, verb: str, needs_person: bool = False
) -> ExtractedFact | None:
    """`needs_person`: "my wife is Ana" only where the parser sees a person in "Ana"."""
    name, relation = person_name(m["value"]), m["rel"].lower()
    if not name or (needs_person and not is_person_entity(c.span, name)):
        return None
    content = f"{c.name}'s {relation} {verb} {name}"
    return make_fact(c, FAMILY, content, slot=relation_slot(relation), value=name)


def status_fact(
    m: re.Match[str], c: Clause, *, verb: str = "is", kind: Kind = FAMILY
) -> ExtractedFact | None:
    """ "is married" (FAMILY), or "got married" (verb "got", a MILESTONE)."""
    partner = person_name(m["partner"]) if m["partner"] else None
    if m["partner"] and not partner:
        return None
    status = m["value"].lower()
    content = f"{c.name} {verb} {status}" + (f" to {partner}" if partner else "")
    return make_fact(c, kind, dated(c, content), slot="relationship_status", value=status)


def health_value(m: re.Match[str]) -> str | None:
    value = clean_value(m["value"], max_words=4)
    return value.lower() if value else None


def diet_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    value = health_value(m)
    if not value:
        return None
    return make_fact(c, DIET_KIND, f"{c.name} is {value}", slot="diet", value=value)


def condition_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I'm diabetic": the condition is the word said."""
    value = health_value(m)
    if not value:
        return None
    return make_fact(c, HEALTH, f"{c.name} is {value}", slot=f"condition:{value}", value=value)


def have_condition_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I have coeliac disease": keyed as the parse-based reader keys it."""
    value = health_value(m)
    if not value:
        return None
    said = clean_value(m["value"], max_words=4) or value  # "ADHD" keeps its capitals
    key = slot_for("condition", condition_key(value))
    return make_fact(c, HEALTH, f"{c.name} has {said}", slot=key, value=ACTIVE)


def allergy_fact(m: re.Match[str], c: Clause, *, phrase: str) -> ExtractedFact | None:
    """`phrase` with the allergen for `{}`: "is allergic to {}", "has a {} allergy"."""
    value = health_value(m)
    if not value:
        return None
    content = f"{c.name} {phrase.format(value)}"
    return make_fact(c, HEALTH, content, slot=f"allergy:{slot_key(value)}", value=value)


def condition_key(value: str) -> str:
    """A condition's key: its known word ("type 2 diabetes", "mild asthma": diabetes, asthma), as
    the parse-based reader keys it, else its name without "disease"/"syndrome"/"disorder"."""
    name = re.sub(r"\s+(?:disease|syndrome|disorder)$", "", value)
    last = name.split()[-1]
    return last if last in lex.CONDITIONS else name


def work_value(m: re.Match[str], c: Clause) -> str | None:
    value = clean_value(m["value"], max_words=6)
    return third_person(value, c.name) if value else None


def employer_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I work at Figma"."""
    value = work_value(m, c)
    if not value:
        return None
    content = f"{c.name} works {m['prep'].lower()} {value}"
    return make_fact(c, WORK, content, slot="employer", value=value)


def job_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    title = m["value"].lower()
    rest = rest_of(m["rest"] or "", c)
    content = f"{c.name} is {m['article'].lower()} {title}{rest or ''}"
    return make_fact(c, WORK, content, slot="job_title", value=slot_key(title))


def liked_value(m: re.Match[str], c: Clause) -> str | None:
    value = clean_value(m["value"])
    if not value or COGNITIVE_INFINITIVES.match(value) or REACTION.match(value):
        return None
    return third_person(value, c.name)


def like_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I love hiking", "I can't stand olives" (a dislike)."""
    value = liked_value(m, c)
    if not value:
        return None
    verb = re.sub(r"\s+", " ", m["verb"].lower())
    polarity = "dislikes" if verb in NEGATIVE_LIKES or "stand" in verb else "likes"
    content = f"{c.name} {third_person_verb(verb)} {value}"
    return make_fact(c, LIKING, content, slot=slot_for("likes", value), value=polarity)


def fan_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I'm a huge fan of Studio Ghibli"."""
    value = liked_value(m, c)
    if not value:
        return None
    content = f"{c.name} is {m['phrase'].lower()} {value}"
    return make_fact(c, LIKING, content, slot=slot_for("likes", value), value="likes")


PLAN_TTL_DAYS = 90.0
PLAN_GRACE_DAYS = 30.0


def plan_ttl(c: Clause) -> float:
    if c.when is None:
        return PLAN_TTL_DAYS
    today = c.turn.timestamp.date()
    return float((c.when.last - today).days) + PLAN_GRACE_DAYS


def plan(c: Clause, verb: str, rest: str) -> ExtractedFact:
    return make_fact(c, PLAN, dated(c, f"{c.name} {verb}{rest}"), ttl_days=plan_ttl(c))


def plan_fact(m: re.Match[str], c: Clause, *, verb: str) -> ExtractedFact | None:
    """ "I'm planning to …" ("plans to"), "I will …" ("will")."""
    rest = rest_of(m["rest"], c)
    return plan(c, verb, rest) if rest else None


def going_to_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I'm going to visit Rome" plans; "I'm going to Rome" is going."""
    rest = rest_of(m["rest"], c)
    if not rest:
        return None
    verb = "plans to" if tagged(c.span, rest.split()[0], "VB") else "is going to"
    return plan(c, verb, rest)


def appointment_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I have a dentist appointment on Friday": only with an event noun."""
    rest = rest_of(m["rest"], c)
    if not rest or not EVENT_NOUN_END.search(rest):
        return None
    return plan(c, "has", rest)


def progressive_plan_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    verb, rest = m["verb"].lower(), rest_of(m["rest"], c)
    if rest is None or verb in STATE_VERBS or not tagged(c.span, verb, "VBG"):
        return None
    content = dated(c, f"{c.name} is {verb}{rest}")
    return make_fact(c, PLAN, content, ttl_days=plan_ttl(c))


def habit_rest(m: re.Match[str], c: Clause) -> str | None:
    rest = rest_of(m["rest"], c)
    return rest if rest is not None and tagged(c.span, m["verb"], "VBP", "VB") else None


def adverb_habit_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I usually have a glass of wine"."""
    verb, rest = m["verb"], habit_rest(m, c)
    if rest is None:
        return None
    slot = habit_slot(verb, rest)
    content = f"{c.name} {m['adv'].lower()} {third_person_verb(verb)}{rest}"
    return make_fact(c, HABIT, content, slot=slot, value=ACTIVE if slot else None)


def frequency_habit_fact(m: re.Match[str], c: Clause) -> ExtractedFact | None:
    """ "I go for a run every morning" (or "every morning I …")."""
    verb, rest = m["verb"], habit_rest(m, c)
    if rest is None:
        return None
    slot = habit_slot(verb, rest)
    lead = f" {m['lead'].lower()}" if m["lead"] else ""
    if not (lead or FREQUENCY_RE.search(rest)):
        return None
    content = f"{c.name} {third_person_verb(verb)}{rest}{lead}"
    return make_fact(c, HABIT, content, slot=slot, value=ACTIVE if slot else None)


def event_fact(m: re.Match[str], c: Clause, *, with_others: bool = False) -> ExtractedFact | None:
    """`with_others`: "Sophie and I went to …" is an event of the user and Sophie."""
    verb, rest = m["verb"].lower(), rest_of(m["rest"], c)
    if rest is None or verb in NON_EVENT_VERBS or not tagged(c.span, verb, "VBD"):
        return None
    # "I was at the beach", not "I was bored" or "I was just remembering": states aren't events.
    if verb in PAST_BE and not (rest and tagged(c.span, rest.split()[0], "IN")):
        return None
    who = c.name
    if with_others:
        if clean_value(m["who"], max_words=6) is None:
            return None
        who = f"{c.name} and {third_person(m['who'][0].lower() + m['who'][1:], c.name)}"
    return make_fact(c, EVENT_KIND, dated(c, f"{who} {verb}{rest}"))
