"""Readers of what the speaker has, keeps and lives with: pets, children and siblings, vehicles
and things, partners and marriages, goals and projects (see app/remember/rules/readers.py)."""

import re

from spacy.tokens import Span, Token

from app import lexicon as lex
from app.lexicon import word_set
from app.remember.attributes import ACTIVE, ANY, ENDED, item_key, slot_for
from app.remember.facts import ExtractedFact, Turn
from app.remember.rules.fact_kinds import FAMILY, HEALTH, MILESTONE, dated, make_fact
from app.remember.rules.frames import (
    Predicate,
    clause_of,
    head_words,
    is_name,
    name_text,
    phrase,
    rest_text,
)
from app.remember.rules.reading import GOAL, OWNS, PAST_TAGS, ending, fact, who
from app.remember.rules.values import third_person_verb

# The verbs that give a noun its name: "a beagle called Biscuit", "a cat named Mochi".
NAMING_VERBS = frozenset({"call", "name"})
OWNING_VERBS = frozenset({"own", "buy"})
MARITAL_STATUSES = frozenset({"married", "engaged", "divorced"})

# --- People, pets and things -----------------------------------------------------------------


def _names(token: Token, lower_case: bool) -> list[str]:
    """Names given to a noun: "a beagle called Biscuit", "two cats, Mochi and Tofu"."""
    found = []
    for child in token.children:
        if child.dep_ == "acl" and child.lemma_.lower() in NAMING_VERBS:
            found += [
                name_text(n, lower_case)
                for c in child.children
                if c.dep_ in ("oprd", "attr", "dobj")
                for n in (c, *c.conjuncts)
            ]
        elif child.dep_ == "appos" and is_name(child, lower_case):
            found += [name_text(n, lower_case) for n in (child, *child.conjuncts)]
        elif child.dep_ == "appos":
            found += _names(child, lower_case)
        elif child.dep_ == "conj" and _listed_after_comma(token, child, lower_case):
            names = [n for n in (child, *child.conjuncts) if n.i > token.i]
            found += [name_text(n, lower_case) for n in names if is_name(n, lower_case)]
    return found


def _listed_after_comma(token: Token, child: Token, lower_case: bool) -> bool:
    """ "twin boys, Ollie and Finn": names listed after a comma are parsed as conjuncts."""
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return after is not None and after.text == "," and is_name(child, lower_case)


NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _number(token: Token) -> int | None:
    """How many the noun's count or article says ("two cats", "a sister", "3 kids")."""
    counts = [c.lower_ for c in token.children if c.dep_ in ("nummod", "det")]
    return next(
        (int(c) if c.isdigit() else NUMBERS[c] for c in counts if c.isdigit() or c in NUMBERS), None
    )


def _counted(token: Token, names: list[str]) -> list[str]:
    """The names, unless the count says otherwise ("two cats named Tom, Jerry and Spike")."""
    number = _number(token)
    return names if number is None or number == len(names) else []


SIBLINGS = word_set("brother brothers sister sisters sibling siblings")


def _siblings(p: Predicate, obj: Token, verb: str) -> list[ExtractedFact]:
    """ "I have two sisters", "a brother called Sam": `family:<sibling>`, valued by the names
    (or the count), so that a later count or name of the same siblings replaces it."""
    number = _number(obj)
    if number is None:
        return []
    names = " and ".join(_counted(obj, _names(obj, p.lower_case)))
    content = f"{who(p)} {verb} {phrase(obj)}" + (f" named {names}" if names else "")
    return [fact(p, FAMILY, content, f"family:{obj.lemma_.lower()}", names or str(number))]


def read_have(p: Predicate) -> list[ExtractedFact]:
    if p.negated:
        return []
    verb = {"adopt": "adopted", "rescue": "rescued", "buy": "bought"}.get(
        p.lemma, "have" if p.partner is not None else "has"
    )
    found = []
    for obj in p.objects()[:1]:
        word = obj.lemma_.lower()
        if word in lex.PETS or obj.lower_ in lex.PETS:
            names = _counted(obj, _names(obj, p.lower_case))
            for name in names or [word]:
                what = f"a {obj.lemma_.lower()}" if len(names) > 1 else phrase(obj)
                named = f" named {name}" if names else ""
                content = dated(p.clause, f"User {verb} {what}{named}")
                found.append(fact(p, FAMILY, content, slot_for("pet", name), ACTIVE))
        elif word in lex.CHILDREN or obj.lower_ in lex.CHILDREN:
            names = _counted(obj, _names(obj, p.lower_case))
            named = f" named {' and '.join(names)}" if names else ""
            content = f"{who(p)} {verb} {phrase(obj)}{named}"
            found.append(fact(p, FAMILY, content, "family:children", item_key(phrase(obj))))
        elif obj.lower_ in SIBLINGS:
            found += _siblings(p, obj, verb)
        elif _is_vehicle(obj):
            content = f"User {verb} {phrase(obj)}"
            found.append(fact(p, OWNS, content, "vehicle", item_key(phrase(obj))))
        elif p.lemma in OWNING_VERBS and obj.pos_ in ("NOUN", "PROPN"):
            bought = "owns" if p.lemma == "own" else "bought"
            content = dated(p.clause, f"User {bought} {rest_text(p.verb)}")
            found.append(fact(p, OWNS, content, slot_for("possession", head_words(obj)), ACTIVE))
        elif word in lex.CONDITIONS:
            found.append(
                fact(p, HEALTH, f"User has {phrase(obj)}", slot_for("condition", word), ACTIVE)
            )
    return found


def _is_vehicle(token: Token) -> bool:
    words = {t.lower_ for t in token.subtree}
    return token.lemma_.lower() in lex.VEHICLES or bool(words & lex.CAR_BRANDS)


def read_drive(p: Predicate) -> list[ExtractedFact]:
    if p.negated or p.verb.tag_ not in ("VBP", "VBZ"):
        return []
    return [
        fact(p, OWNS, f"User drives {phrase(o)}", "vehicle", item_key(phrase(o)))
        for o in p.objects()[:1]
    ]


def read_sell(p: Predicate) -> list[ExtractedFact]:
    if p.negated or p.verb.tag_ not in PAST_TAGS:
        return []
    return [ending(p, f"User sold {phrase(o)}", ANY, head_words(o)) for o in p.objects()[:1]]


def read_break_up(p: Predicate) -> list[ExtractedFact]:
    if p.negated or p.verb.tag_ not in PAST_TAGS:
        return []
    partner = p.partner or next(iter(p.preps("with")), None)
    if partner is None:
        return []
    content = dated(p.clause, f"User and {name_text(partner, p.lower_case)} broke up")
    return [fact(p, MILESTONE, content, "partner", ENDED)]


def read_marry(p: Predicate) -> list[ExtractedFact]:
    """ "we got married on Saturday", "Priya and I got engaged", "I married Sam"."""
    status = next((c.lower_ for c in p.verb.subtree if c.lower_ in MARITAL_STATUSES), None)
    if status is None or p.negated or p.verb.tag_ not in PAST_TAGS:
        return []
    partner = p.partner or next(iter(p.preps("to")), None)
    to = f" to {name_text(partner, p.lower_case)}" if partner is not None else ""
    content = dated(p.clause, f"User got {status}{to}")
    return [fact(p, MILESTONE, content, "relationship_status", status)]


def read_want(p: Predicate) -> list[ExtractedFact]:
    """A goal with a date ("want to get my AWS certification by the end of March")."""
    goal = next(iter(p.children("xcomp")), None)
    dated_goal = p.clause.when is not None or any(t.ent_type_ == "DATE" for t in p.verb.subtree)
    if goal is None or p.negated or not dated_goal:
        return []
    content = dated(p.clause, f"User wants to {goal.text} {rest_text(goal)}")
    return [fact(p, GOAL, content, slot_for("goal", rest_text(goal)), ACTIVE)]


PROJECT_NOUNS = word_set(
    "app tool game website site project library bot cli plugin extension api service "
    "startup platform"
)


def read_build(p: Predicate) -> list[ExtractedFact]:
    """ "I'm building a habit tracker app in Flutter", "working on a CLI tool in Go"."""
    if p.negated or p.verb.tag_ not in ("VBG", "VBP"):
        return []
    found = []
    for obj in [*p.objects(), *(p.preps("on") if p.lemma == "work" else [])][:1]:
        if obj.lemma_.lower() in PROJECT_NOUNS or "project" in rest_text(p.verb):
            verb = "is building" if p.verb.tag_ == "VBG" else third_person_verb(p.verb.text)
            content = f"{who(p)} {verb} {rest_text(p.verb)}"
            found.append(fact(p, GOAL, content, slot_for("project", head_words(obj)), ACTIVE))
    return found


def pet_fragment_facts(sentence: Span, turn: Turn, lower_case: bool) -> list[ExtractedFact]:
    """ "We got a puppy! A spaniel called Rosie": a verbless fragment naming a pet, in a user
    turn, is the user's pet (an "a"/"my"/"our" pet, never someone else's)."""
    root = sentence.root
    if root.pos_ != "NOUN" or (root.lemma_.lower() not in lex.PETS and root.lower_ not in lex.PETS):
        return []
    owned = [c.lower_ for c in root.children if c.dep_ in ("det", "poss")]
    if not owned or owned[0] not in lex.INDEFINITE_ARTICLES | lex.SPEAKER_POSSESSIVES:
        return []
    names = _names(root, lower_case)
    if len(names) != 1:
        return []
    clause = clause_of(sentence, turn)
    what = phrase(root, preps=())
    what = (
        what[:1].lower() + what[1:]
        if what.lower().startswith(("a ", "an "))
        else f"a {root.lower_}"
    )
    content = f"User has {what} named {names[0]}"
    return [make_fact(clause, FAMILY, content, slot=slot_for("pet", names[0]), value=ACTIVE)]


OTHERS = lex.RELATIONS | word_set(
    "friend mate bestie neighbour neighbor colleague coworker boss manager flatmate housemate "
    "roommate cousin aunt uncle niece nephew grandson granddaughter"
)
POSSESSIVE = re.compile(r"^(?:my|our)\s+", re.I)
# What follows about the speaker or their feelings: "…, so jealous", "…, and we've got a dog".
AFTERTHOUGHT = re.compile(
    r"(?:,\s*(?:so|lol|haha|tbh|which)\b|,?\s+(?:and|but)\s+(?:I|I'm|I've|we|we're|we've)\b).*$",
    re.I,
)


def other_people_facts(sentence: Span, turn: Turn, lower_case: bool) -> list[ExtractedFact]:
    """ "my brother Luis works in Seville", "my mate Ollie just got a job at Google": stored about
    that named person, as the user's memory of them ("User's brother Luis works in Seville"),
    never as a fact of the user's own: no attribute, so nothing of the user's is superseded.
    An unnamed one ("my sister moved to Toronto") is not kept: whose sister is the memory about
    once there are two?"""
    found = []
    for verb in sentence:
        if verb.pos_ not in ("VERB", "AUX") or verb.dep_ not in ("ROOT", "conj", "ccomp"):
            continue
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is None or subject.lower_ not in OTHERS or subject.i > verb.i:
            continue
        if not any(
            c.dep_ == "poss" and c.lower_ in lex.SPEAKER_POSSESSIVES for c in subject.children
        ):
            continue
        if any(t.lower_ in lex.SPEAKER_PRONOUNS and t.dep_ == "conj" for t in subject.subtree):
            continue  # "my husband and I have…": the user's own fact, read as such
        if not any(
            c.dep_ in ("appos", "compound") and is_name(c, lower_case) for c in subject.children
        ):
            continue  # only a named person ("my brother Luis"): the memory is about them
        start = subject.left_edge
        if start.lower_ not in lex.SPEAKER_POSSESSIVES:
            continue
        clause = clause_of(sentence.doc[start.i : verb.right_edge.i + 1], turn)
        said = AFTERTHOUGHT.sub("", POSSESSIVE.sub("User's ", clause.text))
        if len(said.split()) < 4:  # "my dad said": nothing said about them
            continue
        found.append(make_fact(clause, FAMILY, dated(clause, said)))
    return found
