"""Readers: one per kind of predicate, each turns the speaker's predicate into facts.

Each reader gets a `Predicate` (app/remember/rules/frames.py) and returns the facts it states, each
with its attribute slot (app/remember/attributes.py). Content is the third-person form of what
was said ("User moved from Manchester to Bristol"); values come from the parse, never invented.
This module dispatches by lemma to the readers of homes, moves and tools (home_readers.py), work
and study (work_readers.py), languages, skills and pastimes (pastime_readers.py), and pets,
children, things, partners, goals and projects (people_readers.py).
"""

import re

from app.remember.facts import ExtractedFact
from app.remember.rules.frames import Predicate
from app.remember.rules.home_readers import read_grow_up, read_live, read_move, read_rent, read_use
from app.remember.rules.pastime_readers import read_activity, read_play, read_speak, read_stop
from app.remember.rules.people_readers import (
    read_break_up,
    read_build,
    read_drive,
    read_have,
    read_marry,
    read_sell,
    read_want,
)
from app.remember.rules.reading import Reader
from app.remember.rules.work_readers import (
    read_join,
    read_manage,
    read_start,
    read_study,
    read_teach,
    read_work,
)


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
