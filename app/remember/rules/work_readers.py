"""Readers of work and study: employers, job titles, teaching, managing a business, joining,
starting, and degrees, subjects and schools (dispatched from readers.py)."""

from spacy.tokens import Token

from app import lexicon as lex
from app.remember.attributes import ACTIVE, item_key, slot_for
from app.remember.facts import ExtractedFact
from app.remember.rules.fact_kinds import HABIT, WORK, dated
from app.remember.rules.frames import Predicate, head_words, is_name, name_text, phrase, rest_text
from app.remember.rules.frames import pobjs as _pobjs
from app.remember.rules.reading import GOAL, PAST_TAGS, STUDY, ending, fact, who
from app.remember.rules.values import third_person_verb


def _employer(p: Predicate, token: Token, verb: str) -> ExtractedFact | None:
    if not is_name(token, p.lower_case) and token.ent_type_ != "ORG":
        return None
    name = name_text(token, p.lower_case)
    return fact(p, WORK, f"{who(p)} {verb} {name}", "employer", name)


def _title(p: Predicate, token: Token, verb: str) -> ExtractedFact:
    title = head_words(token).lower()
    words = phrase(token, preps=("of", "at", "in", "for"))
    return fact(p, WORK, f"{who(p)} {verb} {words}", "job_title", title)


def read_work(p: Predicate) -> list[ExtractedFact]:
    if p.negated and p.ended:
        return [ending(p, f"User no longer works {rest_text(p.verb)}", "employer", "")]
    if p.negated or p.verb.tag_ == "VBD":
        return []
    verb = "works" if p.verb.tag_ in ("VBP", "VBG") else p.verb.text
    titles = p.preps("as")[:1]
    places = (p.preps("at", "for") or [o for t in titles for o in _pobjs(t, "at", "for")])[:1]
    found = [_employer(p, t, f"{verb} at") for t in places]
    found += [_title(p, t, f"{verb} as") for t in titles]
    found += [
        fact(p, GOAL, f"{who(p)} is working on {phrase(t)}", slot_for("project", phrase(t)), ACTIVE)
        for t in p.preps("on")[:1]
    ]
    return [f for f in found if f]


def read_teach(p: Predicate) -> list[ExtractedFact]:
    """ "I teach maths at a secondary school", "teaching English": a teacher of the subject."""
    if p.negated or p.verb.tag_ not in ("VBP", "VBG"):
        return []
    subjects = [o for o in p.objects() if o.pos_ in ("NOUN", "PROPN")][:1]
    if not subjects:
        return []
    title = f"{subjects[0].text.lower()} teacher"
    return [fact(p, WORK, f"{who(p)} teaches {rest_text(p.verb)}", "job_title", title)]


def read_manage(p: Predicate) -> list[ExtractedFact]:
    """ "I manage a bakery in Clifton", "I run a small café", "I manage the billing team": what
    the speaker does for work (not "I run a marathon": the object must be a business)."""
    if p.negated or p.team or p.verb.tag_ not in ("VBP", "VBG"):
        return []
    places = [o for o in p.objects() if o.lemma_.lower() in lex.BUSINESSES][:1]
    if not places:
        return []
    verb = third_person_verb(p.verb.text.lower()) if p.verb.tag_ == "VBP" else p.verb.text
    title = f"{places[0].lemma_.lower()} manager"
    return [fact(p, WORK, f"{who(p)} {verb} {rest_text(p.verb)}", "job_title", title)]


def read_join(p: Predicate) -> list[ExtractedFact]:
    if p.negated or p.verb.tag_ not in PAST_TAGS:
        return []
    found = [_employer(p, t, "joined") for t in p.objects()[:1]]
    return [f for f in found if f]


def read_start(p: Predicate) -> list[ExtractedFact]:
    if p.negated:
        return []
    verb = {"VBG": "is starting"}.get(p.verb.tag_, "started")
    titles = p.preps("as")[:1]
    places = (p.preps("at") or [o for t in titles for o in _pobjs(t, "at")])[:1]
    found: list[ExtractedFact | None] = [_title(p, t, f"{verb} as") for t in titles]
    found += [_employer(p, t, f"{verb} at") for t in places]
    for gerund in p.children("xcomp"):
        if gerund.tag_ == "VBG":
            content = dated(p.clause, f"{who(p)} {verb} {gerund.text} {rest_text(gerund)}")
            found.append(
                fact(
                    p,
                    HABIT,
                    content,
                    slot_for("activity", gerund.lemma_ + " " + rest_text(gerund)),
                    ACTIVE,
                )
            )
    return [f for f in found if f]


def read_study(p: Predicate) -> list[ExtractedFact]:
    if p.negated or p.verb.tag_ == "VBD":
        return []
    found, degree = [], [o for o in p.objects() if o.lemma_.lower().strip("'s") in lex.STUDY_NOUNS]
    subjects = p.preps("in") if (degree or p.lemma != "study") else p.objects()
    if degree and not subjects:  # "a masters in marine biology": the subject hangs off the degree
        subjects = _pobjs(degree[0], "in")
    if p.lemma == "study":
        subjects = p.objects() or p.preps("in")
    elif not degree:
        return []
    for subject in subjects[:1]:
        what = f"{phrase(degree[0])} in {phrase(subject)}" if degree else phrase(subject)
        found.append(
            fact(p, STUDY, f"{who(p)} is studying {what}", "study", item_key(phrase(subject)))
        )
    for school in p.preps("at")[:1]:
        name = name_text(school, p.lower_case)
        found.append(fact(p, STUDY, f"{who(p)} studies at {name}", "school", name))
    return found
