"""A question that names what was never said has nothing to answer it.

"How often do I see Dr. Johnson?" asked of a history that only ever names Dr. Smith: the turns
about Dr. Smith are close in meaning and share words, so the gate lets them through, and a chat
front-end would inject them as if they answered. But the question names something no memory of
the caller mentions; nothing stored can be about it. Recall then answers `relevant: false` with
no results, as for an off-topic question.

The names are the query's capitalised words (names.py: people, places, brands, nationalities —
"Korea", "Sacramento", "Italian"; and those with a capital inside: "iPad", "YouTube"), consecutive
ones as one ("United States"). Each is looked up in FalkorDB's full-text index within the
caller's scope: the graph, so a memory stored a moment ago and not yet embedded counts, and an
archived one too (it was said). The lookup is loose on purpose — each word by its stem's first
letters (all but the last three, at least four: "Himalayan" finds "Himalayas", "European"
"Europe") or within one typo ("Tennesee") — since wrongly saying "never mentioned" hides what
the user said, while a loose match only lets the gate decide as before; for the same reason a
name of several words is said when any of its words is ("camping in the United States" asked of
turns about Yellowstone that say "the States" but never "United"). A name the index cannot
look up (a stop word of the index, like "Will") is taken as said.

A question that asks to infer ("Would Caroline likely enjoy Vivaldi?", "Could I…") names what
it asks about precisely because it was not said: it is left to the gate. So is a question with
no English function word: a capitalised word is a name in English, but in a language that
capitalises every noun ("Welche Farbe hat mein Auto?") it is any noun, said one way or another.
"""

import asyncio
import logging
import re
from collections.abc import Sequence

from app.scope import Scope
from app.storage.graph import mentions
from app.storage.graph.store import GraphStore

WORD = re.compile(r"[A-Za-z0-9]{2,}")
# The full-text index's own stop words (RediSearch's defaults): a name among them finds nothing.
INDEX_STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is"}
    | {"it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there"}
    | {"these", "they", "this", "to", "was", "will", "with"}
)
log = logging.getLogger(__name__)

MAX_LOOKUPS = 5  # a question names a few things; a pasted text must not make the work grow
MIN_PREFIX = 4
INFERENCE = re.compile(r"^\W*(would|could|might)\b|\blikely\b", re.IGNORECASE)


# English function words: a question without any of them is not read as English.
ENGLISH = re.compile(
    r"\b(?:what|when|where|who|whom|whose|which|why|how|did|do|does|is|are|was|were|have|has|"
    r"had|the|my|i|me|we|our|you|your|of|in|to|for|with|and|about)\b",
    re.IGNORECASE,
)


def reads_as_english(query: str) -> bool:
    """Whether the question has an English function word (its capitals then mark names)."""
    return bool(ENGLISH.search(query))


def asks_to_infer(query: str) -> bool:
    """'Would … likely …', 'Could …', 'Might …': a question answered by inference."""
    return bool(INFERENCE.search(query))


def loose_term(word: str) -> str:
    """The full-text query for one word: its first letters as a prefix, or it within one typo."""
    if len(word) <= MIN_PREFIX:
        return word
    prefix = word[: max(MIN_PREFIX, len(word) - 3)]
    return f"({prefix}*|%{word}%)"


async def unsaid(
    graph: GraphStore, scope: Scope, names: Sequence[str], shown: Sequence[str]
) -> list[str]:
    """The names (a name of several words: none of them) that no memory in the scope mentions.
    `shown`: the contents of the results the
    gate let through — a name one of them holds is said without a lookup, and a word of the best
    one is looked up beside the names as a control: if the index cannot find even that (no index,
    or one still being built), no name is taken as unsaid."""
    held = " ".join(shown).lower()
    words = {
        name: [w for w in WORD.findall(name) if w.lower() not in INDEX_STOP_WORDS]
        for name in names[:MAX_LOOKUPS]
    }
    asked = {
        name: "|".join(loose_term(w) for w in found)
        for name, found in words.items()
        if found and not any(w.lower() in held for w in found)
    }
    control = _control_word(shown[0] if shown else "")
    if not asked or control is None:
        return []
    try:
        found = await asyncio.gather(
            *(mentions.mentioned(graph, scope, text) for text in [control, *asked.values()])
        )
    except Exception:  # no full-text index to ask (a store mid-migration): the gate decides
        log.warning("names not looked up in the full-text index", exc_info=True)
        return []
    if not found[0]:
        return []
    return [name for name, said in zip(asked, found[1:], strict=True) if not said]


def _control_word(content: str) -> str | None:
    """The longest word of a result's content that the index can look up, if any."""
    words = [w for w in WORD.findall(content) if w.isalpha() and w.lower() not in INDEX_STOP_WORDS]
    return max(words, key=len) if words else None
