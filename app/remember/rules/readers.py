"""Readers: one per kind of predicate, each turns the speaker's predicate into facts.

Each reader gets a `Predicate` (app/remember/rules/frames.py) and returns the facts it states, each
with its attribute slot (app/remember/attributes.py). Content is the third-person form of what
was said ("User moved from Manchester to Bristol"); values come from the parse, never invented.
This module reads homes, moves, tools, work, study, languages and pastimes, and dispatches by
lemma; app/remember/rules/people_readers.py reads pets, children, things, partners, goals, projects.
"""

import re

from spacy.tokens import Token

from app import lexicon as lex
from app.remember.attributes import ACTIVE, ANY, item_key, slot_for
from app.remember.facts import ExtractedFact
from app.remember.rules.fact_kinds import HABIT, MOVE, PLACE, WORK, dated
from app.remember.rules.frames import Predicate, head_words, is_name, name_text, phrase, rest_text
from app.remember.rules.frames import pobjs as _pobjs
from app.remember.rules.people_readers import (
    read_break_up,
    read_build,
    read_drive,
    read_have,
    read_marry,
    read_sell,
    read_want,
)
from app.remember.rules.reading import (
    GOAL,
    PAST_TAGS,
    SKILL,
    STUDY,
    Reader,
    ending,
    fact,
    tool_fact,
    tool_of,
    who,
)
from app.remember.rules.values import third_person_verb

# --- Home, moves and tools -------------------------------------------------------------------


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


# --- Work and study --------------------------------------------------------------------------


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


# --- Languages, skills, pastimes -------------------------------------------------------------


# "I know two programming languages", "learning a new language": a skill, not a language.
KNOWING_VERBS = frozenset({"know", "learn"})


def read_speak(p: Predicate) -> list[ExtractedFact]:
    if p.negated:
        return []
    verb = "is learning" if p.lemma == "learn" else "speaks"
    found = []
    for obj in p.objects():
        if obj.ent_type_ in ("LANGUAGE", "NORP") or (p.lemma == "speak" and is_name(obj, False)):
            name = obj.text.title() if p.lower_case else obj.text
            found.append(
                fact(p, SKILL, f"{who(p)} {verb} {name}", slot_for("language", name), ACTIVE)
            )
        elif p.lemma in KNOWING_VERBS and "language" in phrase(obj).lower():
            found.append(
                fact(
                    p,
                    SKILL,
                    f"{who(p)} knows {phrase(obj)}",
                    slot_for("skill", phrase(obj)),
                    ACTIVE,
                )
            )
    return found


def read_play(p: Predicate) -> list[ExtractedFact]:
    if p.negated and not p.ended:
        return []
    objects = p.objects() + [c for c in p.verb.children if c.dep_ == "conj" and c.pos_ == "NOUN"]
    found = []
    for obj in objects:
        word = obj.lemma_.lower()
        attribute = "skill" if word in lex.INSTRUMENTS else "activity"
        if word not in lex.INSTRUMENTS and word not in lex.SPORTS:
            continue
        if p.negated:
            found.append(ending(p, f"User no longer plays {obj.text}", attribute, word))
            continue
        extra = " ".join(t.text for c in obj.children if c.dep_ == "prep" for t in c.subtree)
        content = f"{who(p)} plays {phrase(obj)}" + (f" {extra}" if extra else "")
        if obj.dep_ == "dobj":
            content = f"{who(p)} plays {rest_text(p.verb)}".split(" and ")[0]
        found.append(fact(p, SKILL, content, slot_for(attribute, word), ACTIVE))
    return found


LIGHT_VERBS = frozenset({"go", "do", "practise", "practice"})
# Verbs whose object is the pastime itself: "do yoga", "play tennis", "practise judo".
PRACTICE_VERBS = frozenset({"do", "play", "practise", "practice"})
# "I knit a lot": an amount of doing, not a thing done.
AMOUNT_NOUNS = frozenset({"lot", "bit"})
# Habits a plain negation ends ("I don't smoke"), without "any more".
HABIT_VERBS = frozenset({"smoke", "drink", "vape"})
# What someone quits when they leave their employer ("I quit my job").
JOB_NOUNS = frozenset({"job", "work", "position", "role"})


def _activity_name(p: Predicate) -> str | None:
    if p.verb.lemma_.lower() in lex.ACTIVITY_VERBS:
        return p.verb.lemma_.lower()
    if p.verb.lemma_.lower() not in LIGHT_VERBS:
        return None
    for obj in [*p.objects(), *p.children("xcomp")]:
        if obj.lemma_.lower() in lex.ACTIVITY_NOUNS or obj.tag_ == "VBG":
            inner = [c for c in obj.children if c.dep_ == "dobj"]
            light = obj.lemma_.lower() in PRACTICE_VERBS
            return (inner[0] if inner and light else obj).lemma_.lower()
    return None


def _has_other_object(p: Predicate, name: str) -> bool:
    """ "I usually drink coffee" is a habit with coffee, not the pastime "drinking"."""
    others = [o for o in p.children("dobj") if o.lemma_.lower() != name]
    return any(
        o.pos_ in ("NOUN", "PROPN")
        and o.lemma_.lower() not in AMOUNT_NOUNS
        and o.ent_type_ != "CARDINAL"
        for o in others
    )


def read_activity(p: Predicate) -> list[ExtractedFact]:
    """ "I swim every morning", "I go hiking", "I do yoga"; "I don't smoke any more" ends one."""
    name = _activity_name(p)
    if name is None or _has_other_object(p, name):
        return []
    if p.negated and (p.ended or p.verb.lemma_.lower() in HABIT_VERBS):
        return [
            ending(
                p,
                f"User no longer {third_person_verb(p.verb.lemma_)} {rest_text(p.verb)}".replace(
                    " any more", ""
                ).replace(" anymore", ""),
                "activity",
                name,
            )
        ]
    # "I knit a lot": a past tag on a verb whose past is its base form, with no time said
    same_form = p.verb.lower_ == p.verb.lemma_.lower() and p.clause.when is None
    if p.negated or not (p.verb.tag_ in ("VBP", "VB") or (p.verb.tag_ == "VBD" and same_form)):
        return []
    before = [t.text for t in p.verb.lefts if t.dep_ == "advmod"]
    lead = [t for t in p.verb.lefts if t.dep_ == "npadvmod"]
    tail = " ".join(t.text for t in lead[0].subtree).lower() if lead else ""
    words = [who(p), *before, third_person_verb(p.verb.text.lower()), rest_text(p.verb), tail]
    content = " ".join(w for w in words if w)
    return [fact(p, HABIT, content, slot_for("activity", name), ACTIVE)]


def read_stop(p: Predicate) -> list[ExtractedFact]:
    """ "I stopped doing yoga", "gave up football", "quit smoking", "I quit the cafe"."""
    if p.negated:
        return []
    found = []
    for obj in [*p.objects(), *p.children("xcomp")]:
        light = obj.lemma_.lower() in PRACTICE_VERBS | LIGHT_VERBS
        inner = [c for c in obj.children if c.dep_ == "dobj"] if light else []
        thing = (inner[0] if inner else obj).lemma_.lower()
        content = f"{who(p)} {p.verb.text.lower()} {rest_text(p.verb)}"
        if thing in JOB_NOUNS:
            found.append(ending(p, content, "employer", ""))
        elif thing in lex.ACTIVITY_NOUNS or thing in lex.SPORTS or obj.tag_ == "VBG":
            found.append(ending(p, content, "activity", thing))
        else:
            found.append(ending(p, content, ANY, phrase(obj)))
    return found[:1]


def read_get(p: Predicate) -> list[ExtractedFact]:
    """ "I got a puppy" (a thing had), else "we got engaged" (a marriage)."""
    return read_have(p) or read_marry(p)


READERS: dict[str, Reader] = {
    **dict.fromkeys(("build", "make", "develop", "create", "code"), read_build),
    **dict.fromkeys(("live", "reside", "base"), read_live),
    **dict.fromkeys(("rent", "share"), read_rent),
    "grow up": read_grow_up,
    **dict.fromkeys(("move", "relocate", "switch", "migrate"), read_move),
    **dict.fromkeys(("move off", "switch over"), read_move),
    **dict.fromkeys(("use", "host", "deploy", "run on"), read_use),
    "work": read_work,
    "join": read_join,
    "teach": read_teach,
    **dict.fromkeys(("manage", "run"), read_manage),
    **dict.fromkeys(("start", "begin"), read_start),
    **dict.fromkeys(("study", "do"), read_study),
    **dict.fromkeys(("speak", "learn", "know"), read_speak),
    "play": read_play,
    **dict.fromkeys(("stop", "quit", "give up", "leave"), read_stop),
    **dict.fromkeys(("have", "adopt", "rescue", "own", "buy"), read_have),
    "get": read_get,
    **dict.fromkeys(("drive", "ride"), read_drive),
    **dict.fromkeys(("sell", "sell off"), read_sell),
    **dict.fromkeys(("break up", "split up", "split"), read_break_up),
    "marry": read_marry,
    **dict.fromkeys(("want", "hope", "plan", "aim"), read_want),
}
# Readers tried when the lemma's own reader finds nothing ("I do yoga", "I go hiking").
FALLBACK: tuple[Reader, ...] = (read_activity,)


def read_predicate(p: Predicate) -> list[ExtractedFact]:
    found = []
    for key in dict.fromkeys((p.lemma, p.verb.lemma_.lower())):
        reader = READERS.get(key)
        if reader is not None:
            found += reader(p)
    if not found:
        for reader in FALLBACK:
            found += reader(p)
    return [f for f in found if re.search(r"\w", f.content)]
