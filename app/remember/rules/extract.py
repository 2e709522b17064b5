"""The no-LLM extractor: first-person statements → standalone third-person facts.

Precision over recall: a clause yields a fact only when it opens with a known first-person
pattern ("I live in …", "my favorite X is …"), in a sentence that is not a question, a
hypothetical, hedged or reported speech. Relative dates resolve against the turn's timestamp and
are written into the content as absolute dates ("yesterday" → "on 14 March 2024").
CPU-bound (spaCy): callers on the event loop run it in a thread.

This module holds the rule table (pattern → builder with the row's data, and what a date means
for each rule) and the extractor. The pieces: `clauses` splits a turn into prepared clauses,
`dates` resolves their date expressions, `patterns` are the regexes a clause must match,
`builders` turn a match into a fact, and `values` cleans the value a fact states.
"""

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import partial

from spacy.tokens import Doc, Span

from app.nlp import load_nlp
from app.remember.attributes import attribute_name
from app.remember.facts import ASSISTANT, USER, ExtractedFact, Turn
from app.remember.rules import builders, patterns
from app.remember.rules.clauses import FIRST_PERSON, Clause, clause_spans, is_statement, prepare
from app.remember.rules.dates import When
from app.remember.rules.fact_kinds import MILESTONE, MOVE
from app.remember.rules.frames import predicates
from app.remember.rules.normalise import is_sarcastic, looks_lower_case, normalise
from app.remember.rules.people_readers import other_people_facts, pet_fragment_facts
from app.remember.rules.readers import read_predicate
from app.remember.rules.statements import (
    copula_facts,
    death_facts,
    goal_facts,
    relation_facts,
    stack_facts,
)


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


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    build: builders.Builder
    dates: Dates = Dates.NONE


NAME_RULES = (
    Rule(patterns.NAME_IS, partial(builders.name_fact, title_case=True)),
    Rule(patterns.CALL_ME, builders.name_fact),
    Rule(patterns.NAME_INTRO, partial(builders.name_fact, introduction=True)),
)
ASSISTANT_RULES = (*NAME_RULES, Rule(patterns.ASSISTANT_NAMED, builders.name_fact))
# First match wins, so the specific patterns come before the general ones.
USER_RULES = (
    *NAME_RULES,
    Rule(patterns.AGE, builders.age_fact),
    Rule(patterns.TURNED, builders.age_fact, Dates.MAYBE_PAST),
    Rule(patterns.FAVORITE, builders.favorite_fact),
    Rule(patterns.FAVORITE_INVERTED, partial(builders.favorite_fact, value_first=True)),
    Rule(patterns.BIRTHDAY, builders.birthday_fact, Dates.ANY),
    Rule(patterns.BORN, builders.born_fact, Dates.PAST),
    Rule(
        patterns.BORN_IN,
        partial(builders.place_fact, phrase="was born in", slot="birthplace"),
        Dates.MAYBE_PAST,
    ),
    Rule(patterns.MY_ATTRIBUTE, builders.attribute_fact),
    Rule(patterns.RELATION_NAMED, partial(builders.relation_fact, verb="is named")),
    Rule(patterns.SPOUSE_IS, partial(builders.relation_fact, verb="is", needs_person=True)),
    Rule(patterns.STATUS, builders.status_fact),
    Rule(
        patterns.GOT_STATUS,
        partial(builders.status_fact, verb="got", kind=MILESTONE),
        Dates.MAYBE_PAST,
    ),
    Rule(patterns.DIET, builders.diet_fact),
    Rule(patterns.CONDITION, builders.condition_fact),
    Rule(patterns.HAVE_CONDITION, builders.have_condition_fact, Dates.MAYBE_PAST),
    Rule(patterns.ALLERGIC, partial(builders.allergy_fact, phrase="is allergic to {}")),
    Rule(patterns.ALLERGY, partial(builders.allergy_fact, phrase="has a {} allergy")),
    Rule(patterns.WORK_AT, builders.employer_fact),
    Rule(patterns.JOB, builders.job_fact),
    Rule(patterns.LIVE_IN, partial(builders.place_fact, phrase="lives in", slot="residence")),
    Rule(
        patterns.MOVED,
        partial(builders.place_fact, phrase="moved to", slot="residence", kind=MOVE),
        Dates.MAYBE_PAST,
    ),
    Rule(patterns.FROM, partial(builders.place_fact, phrase="is from", slot="origin")),
    Rule(patterns.LIKE, builders.like_fact),
    Rule(patterns.FAN, builders.fan_fact),
    Rule(patterns.GOING_TO, builders.going_to_fact, Dates.FUTURE),
    Rule(patterns.PLANNING, partial(builders.plan_fact, verb="plans to"), Dates.MAYBE_FUTURE),
    Rule(patterns.WILL, partial(builders.plan_fact, verb="will"), Dates.FUTURE),
    Rule(patterns.APPOINTMENT, builders.appointment_fact, Dates.FUTURE),
    Rule(patterns.PROGRESSIVE, builders.progressive_plan_fact, Dates.FUTURE),
    Rule(patterns.HABIT_ADVERB, builders.adverb_habit_fact),
    Rule(patterns.HABIT_FREQUENCY, builders.frequency_habit_fact),
    Rule(patterns.EVENT, builders.event_fact, Dates.PAST),
    Rule(patterns.COMPOUND_EVENT, partial(builders.event_fact, with_others=True), Dates.PAST),
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


def template_facts(sentence: Span, turn: Turn) -> list[tuple[ExtractedFact, Span]]:
    """The template rules' fact of each first-person clause, with the clause."""
    found = []
    for span in clause_spans(sentence):
        fact = clause_fact(prepare(span, turn.role, turn))
        if fact:
            found.append((fact, span))
    return found


def parsed_facts(sentence: Span, turn: Turn, lower_case: bool) -> list[tuple[ExtractedFact, int]]:
    """What the dependency parse says the user states, with the index of the predicate."""
    found: list[tuple[ExtractedFact, int]] = []
    for p in predicates(sentence, turn, lower_case):
        facts = read_predicate(p) + (copula_facts(p) if p.verb.lemma_ == "be" else [])
        found += [(fact, p.verb.i) for fact in facts]
    extra = [
        *relation_facts(sentence, turn, lower_case),
        *death_facts(sentence, turn, lower_case),
        *goal_facts(sentence, turn),
        *stack_facts(sentence, turn, lower_case),
        *pet_fragment_facts(sentence, turn, lower_case),
        *other_people_facts(sentence, turn, lower_case),
    ]
    return found + [(fact, sentence.end) for fact in extra]


def read_by_parse(fact: ExtractedFact, span: Span, parsed: list[tuple[ExtractedFact, int]]) -> bool:
    """The parse read the template fact's clause already: a fact of the same attribute there
    (for a template fact without an attribute, a plan or an event, any fact there)."""
    covering = {attribute_name(f.slot or "") for f, i in parsed if span.start <= i < span.end}
    return attribute_name(fact.slot) in covering if fact.slot else bool(covering)


def sentence_facts(sentence: Span, turn: Turn, lower_case: bool) -> list[ExtractedFact]:
    """The parse's facts, and the template rules' where the parse did not read their clause
    (the few forms both read: see docs/remember.md)."""
    templates = template_facts(sentence, turn)
    if turn.role != USER:
        return [fact for fact, _ in templates]
    parsed = parsed_facts(sentence, turn, lower_case)
    kept = list(parsed)
    kept += [
        (fact, span.start) for fact, span in templates if not read_by_parse(fact, span, parsed)
    ]
    unique: dict[tuple[str | None, str | None, str], ExtractedFact] = {}
    for fact, _ in sorted(kept, key=lambda pair: pair[1]):
        key = (fact.slot, fact.value, "" if fact.slot else fact.content)
        unique.setdefault(key, fact)
    return list(unique.values())


def turn_facts(turn: Turn, doc: Doc, lower_case: bool = False) -> Iterator[ExtractedFact]:
    for sentence in doc.sents:
        if not is_statement(sentence.text) or is_sarcastic(sentence.text):
            continue
        yield from sentence_facts(sentence, turn, lower_case)


def _is_candidate(turn: Turn) -> bool:
    """User turns are read whole (chat drops the "I"); the assistant's only when it says "I"."""
    if turn.role == USER:
        return True
    return turn.role in RULES_BY_ROLE and bool(FIRST_PERSON.search(turn.content))


def extract_facts_by_rules(turns: Sequence[Turn]) -> list[ExtractedFact]:
    """Facts stated in the first person by the user (and the assistant's own name), deduplicated."""
    candidates = [t for t in turns if _is_candidate(t)]
    docs = load_nlp().pipe(normalise(t.content) for t in candidates)
    facts: dict[tuple[str, str], ExtractedFact] = {}
    for turn, doc in zip(candidates, docs, strict=True):
        for fact in turn_facts(turn, doc, looks_lower_case(turn.content)):
            first = facts.setdefault((fact.subject, fact.content.casefold()), fact)
            if first is not fact and fact.message_id and fact.message_id != first.message_id:
                first.also_from.append(fact.message_id)
    return list(facts.values())
