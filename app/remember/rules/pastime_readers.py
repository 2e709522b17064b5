"""Readers of languages, skills and pastimes: languages spoken or learnt, instruments and sports
played, activities and habits, and what the speaker stopped doing (dispatched from readers.py)."""

from app import lexicon as lex
from app.remember.attributes import ACTIVE, ANY, slot_for
from app.remember.facts import ExtractedFact
from app.remember.rules.fact_kinds import HABIT
from app.remember.rules.frames import Predicate, is_name, phrase, rest_text
from app.remember.rules.reading import SKILL, ending, fact, who
from app.remember.rules.values import third_person_verb

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
