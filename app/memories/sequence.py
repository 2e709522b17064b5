"""Conversation order without a session: which memories written together form a sequence.

Recall's context channel lifts the turns next to a good match (`PRECEDED_BY` links with
`session = true`). A client that sends `source.session_id` gets those links from the session; one
that does not (AutoMem's clients post turns with tags and timestamps only) gets them inferred:

- memories without a session id, of the same scope, with the same tags and the same
  conversation labels (CONVERSATION_LABELS: `conversation`, `chat_id`, `session`, `thread`, …;
  a label that differs from one memory to the next, such as a message id, does not count), whose
  timestamps are at most CLOSE apart, are a sequence in the order written;
- within one write (`POST /memory/batch`), consecutive items that match form a run;
- the first of a run follows the latest memory of an earlier write that matches it, if that one
  was written at most CLOSE ago and its timestamp is at most CLOSE from the run's first.

A change of tags, conversation label, or a gap of more than CLOSE starts a new sequence.
"""

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.models import Memory, to_iso

CLOSE = timedelta(minutes=30)
EARLIEST, LATEST = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)
CONVERSATION_LABELS = (
    "conversation",
    "conversation_id",
    "chat",
    "chat_id",
    "session",
    "session_id",
    "thread",
    "thread_id",
    "channel",
    "channel_id",
)


def sequence_key(memory: Memory) -> str:
    """What memories of one sequence share: scope, tags and conversation labels."""
    labels = {k: memory.labels[k] for k in CONVERSATION_LABELS if k in memory.labels}
    key = [memory.user_id, memory.agent_id, sorted(memory.tags), sorted(labels.items())]
    return json.dumps(key, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Inferred:
    """The links a write implies: pairs inside it, and each run's first (to an earlier write)."""

    pairs: list[dict[str, str]]  # {later, earlier}
    firsts: list[dict[str, str]]  # {id, key, after, before}: its timestamp ± CLOSE
    keys: dict[str, str]  # memory id -> sequence key, for every memory without a session


def _shifted(moment: datetime, delta: timedelta) -> datetime:
    """`moment + delta`, held inside the calendar: a memory may be dated 9999-12-31."""
    try:
        return moment + delta
    except OverflowError:
        return EARLIEST if delta < timedelta(0) else LATEST


def _close(a: str, b: str) -> bool:
    return abs(datetime.fromisoformat(a) - datetime.fromisoformat(b)) <= CLOSE


def infer(memories: list[Memory]) -> Inferred:
    """The sequence links of the memories of one write that have no session id, in order."""
    pairs, firsts, keys = [], [], {}
    previous: Memory | None = None
    for memory in memories:
        if memory.session_id:
            continue
        keys[memory.id] = key = sequence_key(memory)
        if (
            previous is not None
            and keys[previous.id] == key
            and _close(previous.timestamp, memory.timestamp)
        ):
            pairs.append({"later": memory.id, "earlier": previous.id})
        else:
            moment = datetime.fromisoformat(memory.timestamp)
            firsts.append(
                {
                    "id": memory.id,
                    "key": key,
                    "after": to_iso(_shifted(moment, -CLOSE)),
                    "before": to_iso(_shifted(moment, CLOSE)),
                }
            )
        previous = memory
    return Inferred(pairs, firsts, keys)
