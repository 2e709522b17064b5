"""Sentence-level readings besides verbs: "I'm X" statements, the people a speaker names, deaths,
goals and the tools of a stack.

- `copula_facts`: "I'm Pia, data analyst, based in Derby" (name, then the appositions: age,
  job, home), "I'm a primary school teacher", "I'm in Madrid", "I'm not vegan any more",
  "I'm fluent in Mandarin and Cantonese";
- `relation_facts`: "my husband Karim", "my girlfriend Sophie" — who they are to the speaker,
  never what they do;
- `death_facts`: "Biscuit passed away on Sunday" ends what was known about Biscuit;
- `goal_facts`: "goal for next year: run the London marathon";
- `stack_facts`: the known tools a speaker says their stack uses ("our stack is Django + MySQL").
"""

import re

from spacy.tokens import Span, Token

from app import lexicon as lex
from app.remember.attributes import ACTIVE, ANY, ENDED, item_key, slot_for
from app.remember.facts import ExtractedFact, Turn
from app.remember.rules.fact_kinds import (
    DIET_KIND,
    EVENT_KIND,
    FAMILY,
    IDENTITY,
    PLACE,
    WORK,
    dated,
    make_fact,
)
from app.remember.rules.frames import (
    Predicate,
    clause_of,
    head_words,
    is_name,
    name_text,
    phrase,
    pobjs,
)
from app.remember.rules.reading import GOAL, SKILL, fact, tool_fact, tool_of

GREETINGS = frozenset({"hey", "hi", "hello", "hiya", "yo", "heya", "howdy", "morning", "evening"})
DIETS = frozenset({"vegan", "vegetarian", "pescatarian", "pescetarian"})
GOAL_LINE = re.compile(
    r"^(?:my\s+|our\s+)?(?:(?:big|main|new)\s+)?goals?\b(?P<when>[^:]{0,40}?)"
    r"(?::|\s+(?:is|was)\s+to\b)\s*(?P<what>.+)$",
    re.I,
)
JOB_WORDS = frozenset(
    {"job", "offer", "role", "position", "hire", "work", "company", "start", "join", "team"}
)
SWITCH_VERBS = frozenset({"move", "switch", "migrate", "replace", "ditch", "drop", "leave"})
# "Pia, based in Derby", "Tom, living in Cork": an apposition that gives the home.
HOME_VERBS = frozenset({"base", "live"})
# Pronouns: a death is read only of a name or a known kin or pet ("Biscuit died", not "it died").
PRONOUNS = frozenset({"i", "we", "it", "he", "she", "they"})
TEAM_NOUNS = frozenset(
    {
        "stack",
        "backend",
        "frontend",
        "ci",
        "app",
        "database",
        "db",
        "infra",
        "team",
        "project",
        "service",
        "api",
        "site",
        "website",
    }
)


def _occupation(token: Token) -> bool:
    word = token.lower_
    known = token.lemma_.lower() in lex.OCCUPATIONS or word in lex.OCCUPATIONS
    return known or (word.isalpha() and word.endswith(lex.OCCUPATION_ENDINGS))


def _job(p: Predicate, token: Token) -> list[ExtractedFact]:
    """ "a designer at Canva": the job title, and the employer as a fact of its own (so that
    "I've joined Figma" later supersedes the employer and leaves the title)."""
    employers = [t for t in pobjs(token, "at", "for") if _organisation(t, p.lower_case)][:1]
    words = phrase(token, preps=("of", "in") if employers else ("of", "at", "in", "for"))
    article = "" if re.match(r"(?i)(?:a|an|the)\s", words) else "a "
    found = [fact(p, WORK, f"User is {article}{words}", "job_title", item_key(head_words(token)))]
    return found + [_works_at(p, t) for t in employers] + _trade_tools(p, token)


def _trade_tools(p: Predicate, job: Token) -> list[ExtractedFact]:
    """ "a Java developer", "a React engineer": the language or tool of the trade."""
    found = []
    for word in (t for t in job.lefts if t.dep_ in ("compound", "amod", "nmod")):
        tool = tool_of(word)
        if tool and tool[1] == "programming_language":
            found.append(tool_fact(p, f"User works with {word.text}", *tool))
    return found


def _organisation(token: Token, lower_case: bool) -> bool:
    """A name after "at": the tagger often takes a company for a place ("at Duolingo")."""
    return is_name(token, lower_case) and token.ent_type_ not in ("PERSON", "NORP")


def _works_at(p: Predicate, token: Token) -> ExtractedFact:
    name = name_text(token, p.lower_case)
    return fact(p, WORK, f"User works at {name}", "employer", name)


def _new_employer(p: Predicate) -> list[ExtractedFact]:
    """ "I've accepted an offer and I'm now at Duolingo": "I'm at <organisation>" is an employer
    only where the sentence talks about a job (else it is a place: "I'm at Tesco")."""
    words = {t.lemma_.lower() for t in p.verb.sent}
    if p.negated or p.team or p.clause.when is not None or not words & JOB_WORDS:
        return []
    places = [t for t in p.preps("at") if _organisation(t, p.lower_case)]
    return [_works_at(p, t) for t in places[:1]]


def _apposition_facts(p: Predicate, name: Token) -> list[ExtractedFact]:
    """ "I'm Pia, data analyst, based in Derby": what follows the name, one fact each."""
    found = []
    for child in name.children:
        if child.dep_ == "appos" and child.like_num and child.text.isdigit():
            age = int(child.text)
            if 5 <= age <= 120:
                found.append(
                    make_fact(
                        p.clause, IDENTITY, f"User is {age} years old", slot="age", value=str(age)
                    )
                )
        elif child.dep_ == "appos" and _occupation(child):
            found += _job(p, child)
            found += _apposition_facts(p, child)
        elif child.dep_ == "acl" and child.lemma_.lower() in HOME_VERBS:
            found += _residence(p, pobjs(child, "in"), "is based in")
        elif child.dep_ == "prep" and child.lower_ == "from":
            for place in pobjs(name, "from")[:1]:
                text = name_text(place, p.lower_case)
                found.append(fact(p, PLACE, f"User is from {text}", "origin", text))
    return found


def _residence(p: Predicate, places: list[Token], verb: str) -> list[ExtractedFact]:
    found = []
    for place in places[:1]:
        if is_name(place, p.lower_case):
            text = name_text(place, p.lower_case)
            found.append(fact(p, PLACE, f"User {verb} {text}", "residence", text))
    return found


def _is_own_name(p: Predicate, attr: Token) -> bool:
    if p.team or p.negated or attr.lower_ in lex.NOT_NAMES or attr.lower_ in DIETS:
        return False
    if _occupation(attr) or attr.ent_type_ in ("NORP", "LANGUAGE", "DATE", "CARDINAL"):
        return False
    if attr.ent_type_ == "GPE" and not _introduced(attr):
        return False  # "I'm Siobhan, 44": the tagger takes some names for places
    if any(c.dep_ == "det" for c in attr.children) or attr.i != p.verb.i + 1:
        return False
    if p.lower_case:
        return _greeted(attr)
    return attr.text[:1].isupper() and attr.is_alpha and attr.pos_ in ("PROPN", "NOUN")


def _introduced(attr: Token) -> bool:
    """A name followed by what introductions add: an age or "from <place>" after a comma."""
    return any(c.dep_ == "appos" and c.like_num for c in attr.children) or any(
        c.dep_ == "prep" and c.lower_ == "from" for c in attr.children
    )


def _greeted(attr: Token) -> bool:
    """In a turn written in lower case, "I'm tom" is a name only in a greeting: "hey I'm tom,"."""
    after = attr.doc[attr.i + 1] if attr.i + 1 < len(attr.doc) else None
    ends = after is None or after.is_punct
    return ends and attr.is_alpha and attr.sent[0].lower_ in GREETINGS


def copula_facts(p: Predicate) -> list[ExtractedFact]:
    """What "I am …" states; the template rules cover ages, diets and statuses already."""
    found: list[ExtractedFact] = []
    for attr in p.children("attr", "acomp"):
        if _is_own_name(p, attr):
            name = name_text(attr, p.lower_case)
            found.append(fact(p, IDENTITY, f"User's name is {name}", "name", name))
            found += _apposition_facts(p, attr)
        elif attr.dep_ == "acomp":
            continue
        elif _occupation(attr) and not p.negated and not p.team:
            found += _job(p, attr)
        elif attr.lower_ in DIETS and p.negated:
            found.append(_no_longer(p, attr.lower_))
    for acomp in p.children("acomp"):
        word = acomp.lower_
        if word in DIETS and p.negated:
            found.append(_no_longer(p, word))
        elif word == "fluent" and not p.negated:
            for language in pobjs(acomp, "in"):
                found.append(
                    fact(
                        p,
                        SKILL,
                        f"User speaks {language.text} fluently",
                        slot_for("language", language.text),
                        ACTIVE,
                    )
                )
        elif word == "based":
            found += _residence(p, pobjs(acomp, "in"), "is based in")
    if not p.negated and not p.children("attr", "acomp") and p.clause.when is None:
        places = [t for t in p.preps("in") if t.ent_type_ == "GPE"]
        found += _residence(p, places, "is in")
    if not p.children("attr", "acomp"):
        found += _new_employer(p)
    return found


def _no_longer(p: Predicate, diet: str) -> ExtractedFact:
    return make_fact(p.clause, DIET_KIND, f"User is no longer {diet}", slot="diet", value=ENDED)


def relation_facts(sentence: Span, turn: Turn, lower_case: bool) -> list[ExtractedFact]:
    """ "my husband Karim", "my brother Luis": the person and who they are to the speaker."""
    found = []
    for token in sentence:
        relation = token.lower_
        if relation not in lex.RELATIONS:
            continue
        if not any(
            c.dep_ == "poss" and c.lower_ in lex.SPEAKER_POSSESSIVES for c in token.children
        ):
            continue
        names = [
            c
            for c in token.children
            if c.dep_ in ("appos", "compound", "npadvmod")
            and is_name(c, lower_case)
            and c.i > token.i
        ]
        if not names:
            continue
        name = name_text(names[0], lower_case)
        if relation in lex.SPOUSES:
            slot, value = "spouse", name
        elif relation in lex.PARTNERS:
            slot, value = "partner", name
        else:
            slot, value = slot_for("family", f"{relation} {name}"), ACTIVE
        clause = clause_of(sentence.doc[token.i : names[0].i + 1], turn)
        content = f"User's {relation} is {name}"
        found.append(make_fact(clause, FAMILY, content, slot=slot, value=value))
    return found


def death_facts(sentence: Span, turn: Turn, lower_case: bool) -> list[ExtractedFact]:
    """ "Biscuit passed away on Sunday", "my cat Tofu died": ends what the memory held of them."""
    found = []
    for verb in sentence:
        away = any(c.lower_ == "away" for c in verb.children)
        if not (verb.lemma_.lower() == "die" or (verb.lemma_.lower() == "pass" and away)):
            continue
        subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subject is None or subject.lower_ in PRONOUNS:
            continue
        names = [subject] + [c for c in subject.children if c.dep_ in ("appos", "compound")]
        name = next((t for t in names if is_name(t, lower_case)), None)
        known = subject.lower_ in lex.PETS or subject.lower_ in lex.RELATIONS
        if name is None and not known:
            continue
        clause = clause_of(sentence.doc[subject.left_edge.i : verb.right_edge.i + 1], turn)
        who = phrase(subject, preps=())
        verb_text = "passed away" if away else "died"
        item = name.text if name is not None else subject.text
        content = dated(clause, f"{who[:1].upper()}{who[1:]} {verb_text}".replace("my ", "User's "))
        found.append(make_fact(clause, EVENT_KIND, content, slot=slot_for(ANY, item), value=ENDED))
    return found


def goal_facts(sentence: Span, turn: Turn) -> list[ExtractedFact]:
    match = GOAL_LINE.match(sentence.text.strip())
    if not match:
        return []
    clause = clause_of(sentence, turn)
    what = re.sub(r"[.!]+$", "", match["what"]).strip()
    when = f" {match['when'].strip()}" if match["when"].strip() else ""
    content = f"User's goal{when} is to {what}"
    return [make_fact(clause, GOAL, content, slot=slot_for("goal", what), value=ACTIVE)]


def _speaker_stack(token: Token, lower_case: bool) -> bool:
    """The tool belongs to the speaker's stack: the clause's subject is "I", "we", "our X"."""
    head = token
    while head.dep_ not in ("ROOT",) and head.pos_ not in ("VERB", "AUX"):
        head = head.head
    if head.lemma_.lower() in SWITCH_VERBS or any(c.dep_ == "neg" for c in head.children):
        return False
    subjects = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subjects:
        return head.dep_ == "ROOT"
    subject = subjects[0]
    if subject.lower_ in lex.SPEAKER_PRONOUNS:
        return True
    owned = any(c.dep_ == "poss" and c.lower_ in lex.SPEAKER_POSSESSIVES for c in subject.children)
    return subject.lower_ in TEAM_NOUNS and (owned or subject.lower_ == "ci")


def _tool_text(token: Token) -> str:
    compounds = [t.text for t in token.lefts if t.dep_ == "compound"]
    return " ".join([*compounds, token.text])


def stack_facts(sentence: Span, turn: Turn, lower_case: bool) -> list[ExtractedFact]:
    """Known tools of the speaker's stack, one fact each (a switch is read by its verb)."""
    found, seen = [], set()
    for token in sentence:
        if token.pos_ not in ("PROPN", "NOUN", "X") or token.dep_ in ("compound",):
            continue
        tool = tool_of(token)
        if tool is None or tool[0] in seen or not _speaker_stack(token, lower_case):
            continue
        if tool[0] == "go" and not ({t.lower_ for t in sentence} & lex.CODE_CONTEXT):
            continue
        seen.add(tool[0])
        clause = clause_of(sentence, turn)
        p = Predicate(token, "", False, False, None, True, clause, lower_case)
        found.append(tool_fact(p, f"User's stack includes {_tool_text(token)}", *tool))
    return found
