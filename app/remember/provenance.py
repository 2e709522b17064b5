"""Where a /remember fact came from: the messages and transcript turns it indexes.

`source.message_id` is the first message that said the fact; `source.message_ids` every message
that said it (a repeat adds its own), and `source.turn_ids` the transcript turns of those
messages, so a fact leads back to the words it came from and a superseded fact to the turns that
are now outdated.
"""

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from app.models import Memory
from app.remember.facts import ASSISTANT, ExtractedFact, Turn

_SUBJECT_WORD = {"user": re.compile(r"\bUser\b"), ASSISTANT: re.compile(r"\bAssistant\b")}


def named(fact: ExtractedFact, turns: Sequence[Turn]) -> ExtractedFact:
    """The fact with its speaker's name for "User" / "Assistant", when the client named the
    speaker of the message it came from ("Elise enjoys hiking.", not "User enjoys hiking.")."""
    name = next((t.name for t in turns if t.message_id == fact.message_id and t.name), None)
    word = _SUBJECT_WORD.get(fact.subject)
    if not name or word is None:
        return fact
    return replace(fact, content=word.sub(name.strip(), fact.content))


def with_turns(
    source: dict[str, Any], message_ids: Sequence[str], turn_ids: Sequence[str]
) -> dict[str, Any]:
    """The source with the messages and turns a new fact came from."""
    return {**source, "message_ids": list(message_ids), "turn_ids": list(turn_ids)}


def says_more(stored: Memory, repeat: Memory) -> bool:
    """Whether the repeat comes from a message the stored fact does not name yet (a re-run or
    a repost of the same message adds nothing)."""
    known = set(stored.source.get("message_ids") or [stored.source.get("message_id")])
    return bool(set(repeat.source.get("message_ids") or []) - known)


def merged(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The old fact's source with the repeat's messages and turns added (the first message
    stays `message_id`)."""
    messages = _union(old.get("message_ids") or [old.get("message_id")], new.get("message_ids"))
    turns = _union(old.get("turn_ids"), new.get("turn_ids"))
    return {**old, "message_ids": messages, "turn_ids": turns}


def outdated_turns(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The turns of a superseded fact that did not also say the fact replacing it."""
    current = set(new.get("turn_ids") or [])
    return [t for t in old.get("turn_ids") or [] if t not in current]


def _union(first: Sequence[str | None] | None, second: Sequence[str | None] | None) -> list[str]:
    return [i for i in dict.fromkeys([*(first or []), *(second or [])]) if i]
