"""SHAPE evidence: what a name itself says about its kind.

An "Inc" or "Foundation" suffix makes an organisation, a "Museum" or "Beach" a place, a "Con" or
"Marathon" an event; a well-known tool name or a camel-cased or dotted word (FastAPI, Fly.io) makes
a tool, wherever it occurs in the text.
"""

import re
from collections.abc import Iterator

from spacy.tokens import Doc

from app.enrichment.cues import NER, SHAPE, WORD, Candidate
from app.enrichment.wordlists import (
    AMBIGUOUS_TOOLS,
    CALENDAR_WORDS,
    CHAT_WORDS,
    EVENT_SUFFIXES,
    KNOWN_TOOLS,
    ORG_SUFFIXES,
    PLACE_SUFFIXES,
    PRONOUNS,
    STOPWORDS,
)


def shape_category(name: str) -> str | None:
    """A category the name itself implies, if any."""
    words = name.split()
    last = words[-1].lower().rstrip(".")
    if last in ORG_SUFFIXES or words[0] in ("University", "Bank"):
        return "organizations"
    if last in PLACE_SUFFIXES and len(words) > 1:
        return "places"
    if words[-1].endswith(EVENT_SUFFIXES) and len(words[-1]) > 3:
        return "concepts"
    if {name.lower(), *name.lower().split()} & KNOWN_TOOLS or any(map(_looks_technical, words)):
        return "tools"
    return None


_CAMEL_CASE = re.compile(r"^[A-Za-z]+[a-z][A-Z]\w*$|^[A-Z]{2,}[a-z]{2,}\w*$")
_TECH_DOMAIN = re.compile(r"^[A-Z][\w-]*\.(?:js|io|ai|dev|sh|app|so)$")  # not "main.js"
_NAME_PREFIX = re.compile(r"^(?:Mc|Mac|De|Di|Da|La|Le|Van|Von|O')[A-Z]")  # McKenzie, DeShawn


def _looks_technical(word: str) -> bool:
    """PostgreSQL, GitHub, iPhone, FastAPI, Node.js: shapes that are products, not people."""
    if _NAME_PREFIX.match(word):
        return False
    return bool(_CAMEL_CASE.match(word) or _TECH_DOMAIN.match(word))


_KNOWN_TOOL = re.compile(
    rf"(?<![\w.@/-])(?i:{'|'.join(map(re.escape, sorted(KNOWN_TOOLS, key=len, reverse=True)))})"
    rf"(?![\w+#-]|\.\w)(?:\s+{WORD})?"
)
_AMBIGUOUS_TOOL = re.compile(
    rf"(?<![\w.@/-])(?:{'|'.join(AMBIGUOUS_TOOLS)})(?![\w+#-]|\.\w)(?:\s+{WORD})?"
)
_TECHNICAL_WORD = re.compile(r"(?<![\w.@/-])[A-Za-z][\w.-]*[\w]")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[\"“(]\s*)$")


def tool_candidates(doc: Doc) -> Iterator[Candidate]:
    """Known tool names and tech-shaped words, wherever they occur."""
    text = doc.text
    for match in _KNOWN_TOOL.finditer(text):
        name = _without_common_tail(match.group())
        yield Candidate(name, "tools", SHAPE, match.start(), match.start() + len(name))
    for match in _AMBIGUOUS_TOOL.finditer(text):
        if not _SENTENCE_START.search(text[: match.start()]):
            # Only as strong as NER: "Ruby" tagged PERSON stays a person (a tie goes to people).
            name = _without_common_tail(match.group())
            yield Candidate(name, "tools", NER, match.start(), match.start() + len(name))
    for match in _TECHNICAL_WORD.finditer(text):
        if _looks_technical(word := match.group()):
            category = shape_category(word) or "tools"  # PyCon is an event
            yield Candidate(word, category, SHAPE, match.start(), match.end())


def _without_common_tail(name: str) -> str:
    """ "Notion AI" stays whole, "Python I" (as in "in Python I wrote") loses the "I"."""
    head, _, tail = name.rpartition(" ")
    filler = (PRONOUNS, STOPWORDS, CHAT_WORDS, CALENDAR_WORDS)
    return head if head and any(tail.lower() in words for words in filler) else name
