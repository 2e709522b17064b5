"""People named in a query, found by capitalisation alone (no model, no I/O).

A name is a capitalised word that does not start a sentence ("What did Caroline research?" →
Caroline), or one that does and is possessive ("Caroline's hobbies?"). Month and weekday names
are not names. Acronyms ("LGBTQ") are not names either: they are matched as keywords.

Recall uses the names twice: a memory that starts with a named person (the speaker of a chat
turn, the subject of a note) or mentions one earns the `name` term (rank.name_term), and the
dense query is embedded without the names, so that it carries what is asked rather than who it
is about (a short "Nate: Bye!" is otherwise close to every question about Nate).
"""

import re

from app.lexicon import CALENDAR_NAMES

WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
NAME = re.compile(r"[A-Z][a-z]+")
POSSESSIVE = re.compile(r"['’]s$")
SENTENCE_ENDS = frozenset(".!?:;")
# A full stop after these ends an abbreviated title, not a sentence: "Dr. Johnson" names Johnson.
TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof", "st", "mt", "sr", "jr"})
MAX_NAMES = 20  # a question names a few people; a pasted text must not make the work grow


def query_names(query: str) -> list[str]:
    """The names in a query, in order, each once (at most MAX_NAMES).

    One pass over the words: whether a word opens a sentence is read from the characters
    between it and the word before, so the work grows with the query's length, not its square.
    """
    names: list[str] = []
    seen: set[str] = set()
    previous_end, previous = 0, ""
    for match in WORD.finditer(query):
        token = match.group()
        word = POSSESSIVE.sub("", token)
        gap = query[previous_end : match.start()].rstrip()
        opens = gap[-1] in SENTENCE_ENDS if gap else previous_end == 0
        if opens and gap == "." and previous.lower() in TITLES:
            opens = False
        previous_end, previous = match.end(), token
        if opens and word == token:
            continue  # "What", "Did", … : capitalised because they open the sentence
        if NAME.fullmatch(word) and word.lower() not in CALENDAR_NAMES and word not in seen:
            names.append(word)
            seen.add(word)
            if len(names) == MAX_NAMES:
                break
    return names


def without_names(query: str, names: list[str]) -> str:
    """The query with the names (and their possessive 's) taken out; "" if nothing else is left.

    "What did Caroline research?" → "What did research?"
    """
    if not names:
        return query
    alternatives = "|".join(re.escape(name) for name in names)
    stripped = re.sub(rf"\b(?:{alternatives})(?:['’]s)?\b", " ", query)
    stripped = re.sub(r"\s+", " ", stripped).strip()
    return stripped if WORD.search(stripped) else ""


def name_phrases(query: str, names: list[str]) -> list[str]:
    """The names as the query writes them together: consecutive names with only a space
    between them are one ("the United States" → "United States"), except after a title, which
    is not part of who it names ("Dr Johnson" stays "Dr", "Johnson")."""
    phrases: list[str] = []
    for name in names:
        last = phrases[-1].split()[-1] if phrases else ""
        joined = last and last.lower() not in TITLES
        if joined and re.search(rf"\b{re.escape(last)} +{re.escape(name)}\b", query):
            phrases[-1] = f"{phrases[-1]} {name}"
        else:
            phrases.append(name)
    return phrases


# Brand and product names with a capital inside ("iPad", "eBay", "YouTube", "McDonald"), which
# NAME (one capital, then lower case) does not take.
INNER_CAPITAL = re.compile(r"\b(?:[a-z]+|[A-Z][a-z]+)[A-Z][A-Za-z]*\b")


def inner_capital_names(query: str) -> list[str]:
    """The query's words with a capital after a lower-case letter, each once, in order."""
    return list(dict.fromkeys(INNER_CAPITAL.findall(query)))
