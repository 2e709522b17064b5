"""Transcript turns: every message posted to /remember, kept verbatim (layer `transcript`).

The turns are the record of a conversation; the facts extracted from them are an index over
them (each fact names its messages in `source.message_ids`). A turn is stored as a memory like
one sent to POST /memory — the same dense, keyword and window vectors, the session's order —
with its speaker (the message's `name` when the client sends one, else "User" or "Assistant", as
the facts say) in front of the text wherever it is searched, and its role, message id, session
and time.

- **Identity.** A turn is (scope, session, message id); a message without an id is given one
  from its position in the call and its content's hash (`message_key`). The memory id is derived
  from that identity, so reposting a conversation — chat front-ends send the whole history with
  every turn — stores no turn twice, and a re-run job finds the turns it stored.
- **Long messages** are split at sentence boundaries into chunks of at most the content limit,
  each pointing at its message (`metadata.transcript`: message id, chunk, chunks); never cut.
  Whitespace between two chunks is not kept (the session's messages join them with a space).
- **System and tool messages** are instructions and tool output, not conversation: they are
  neither kept nor read for facts.
"""

import hashlib
import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.memories.build import build_memory
from app.memories.fields import MAX_CONTENT_CHARS
from app.memories.schemas import MemoryCreate, SourceIn
from app.memories.service import store_memories
from app.models import Layer, Memory, MemoryType, utc_now
from app.remember.facts import Turn
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import transcripts

ACTOR = "remember"
KEPT_ROLES = ("user", "assistant")
TURN_IDS = uuid.UUID("6f1c1d4e-9a55-4c1b-8d0e-7c3f2a9b5e10")  # the namespace of turn ids
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class TranscriptOptions:
    """What a conversation's turns are stored with besides their own fields."""

    session_id: str
    agent_id: str | None
    labels: dict[str, Any]
    chat_id: str | None = None
    model: str | None = None
    job: str | None = None  # the job storing them (a re-run of it treats them as its own)


def message_key(position: int, content: str) -> str:
    """The id of a message sent without one: its place in the call and its content's hash."""
    digest = hashlib.sha256(content.encode()).hexdigest()[:16]
    return f"auto-{position}-{digest}"


def with_message_ids(turns: Sequence[Turn]) -> list[Turn]:
    """The turns, each with a message id (the client's, else `message_key`)."""
    return [
        turn
        if turn.message_id
        else Turn(turn.role, turn.content, turn.timestamp, message_key(i, turn.content), turn.name)
        for i, turn in enumerate(turns)
    ]


def turn_id(scope: Scope, session_id: str, message_id: str, chunk: int = 0) -> str:
    """The memory id of one chunk of one message: the same for the same turn, always."""
    identity = [scope.user_id, scope.agent_id, session_id, message_id, chunk]
    return str(uuid.uuid5(TURN_IDS, json.dumps(identity, separators=(",", ":"))))


def split_message(text: str, limit: int = MAX_CONTENT_CHARS) -> list[str]:
    """The text in chunks of at most `limit` characters, split after sentences where it can,
    else at spaces, else (one unbroken run longer than the limit) at the limit. Nothing is
    dropped but the whitespace where a split falls."""
    stripped = text.strip()
    if len(stripped) <= limit:
        return [stripped]
    chunks: list[str] = []
    current = ""
    for piece in _pieces(stripped, limit):
        joined = f"{current} {piece}" if current else piece
        if len(joined) <= limit:
            current = joined
            continue
        chunks.append(current)
        current = piece
    if current:
        chunks.append(current)
    return chunks


def _pieces(text: str, limit: int) -> list[str]:
    """Sentences, and the words (or slices) of any sentence longer than `limit`."""
    pieces = []
    for sentence in filter(None, _SENTENCE_END.split(text)):
        if len(sentence) <= limit:
            pieces.append(sentence)
            continue
        for word in _SPACE.split(sentence):
            pieces += [word[i : i + limit] for i in range(0, len(word), limit)] if word else []
    return pieces


def transcript_memories(
    scope: Scope, turns: Sequence[Turn], options: TranscriptOptions
) -> list[Memory]:
    """The memories of the kept turns (every chunk), in order."""
    memories: list[Memory] = []
    now = utc_now()
    for turn in turns:
        if turn.role not in KEPT_ROLES or not turn.message_id:
            continue
        chunks = split_message(turn.content)
        for index, chunk in enumerate(chunks):
            memory = _chunk_memory(scope, turn, chunk, options, now, position=len(memories))
            memory.id = turn_id(scope, options.session_id, turn.message_id, index)
            if len(chunks) > 1:
                part = {"message_id": turn.message_id, "chunk": index, "chunks": len(chunks)}
                memory.metadata = {**memory.metadata, "transcript": part}
            memories.append(memory)
    return memories


def _chunk_memory(
    scope: Scope,
    turn: Turn,
    chunk: str,
    options: TranscriptOptions,
    now: datetime,
    *,
    position: int,
) -> Memory:
    data = MemoryCreate(
        content=chunk,
        type=MemoryType.CONTEXT,
        confidence=1.0,  # it was said: nothing about it is inferred
        labels=options.labels,
        role=turn.role,
        agent_id=options.agent_id,
        timestamp=turn.timestamp,
        ttl_days=None,  # the record of what was said: TRANSCRIPT_RETENTION_DAYS deletes turns
        source=SourceIn(
            session_id=options.session_id,
            chat_id=options.chat_id,
            message_id=turn.message_id,
            model=options.model if turn.role == "assistant" else None,
        ),
    )
    memory = build_memory(data, scope=scope, actor=ACTOR, now=now, position=position)
    memory.layer, memory.speaker = Layer.TRANSCRIPT, turn.name
    if options.job:
        memory.source = {**memory.source, "remember_job": options.job}
    return memory


@dataclass
class Kept:
    """What keeping a call's turns did: each message's turn ids, and which messages are new."""

    turn_ids: dict[str, list[str]] = field(default_factory=dict)  # message id -> its chunks
    new_messages: set[str] = field(default_factory=set)  # stored now (or by this job before)
    stored: list[str] = field(default_factory=list)

    def turns_of(self, message_ids: Sequence[str]) -> list[str]:
        return [turn for m in message_ids for turn in self.turn_ids.get(m, [])]


async def keep_turns(
    stores: Stores, scope: Scope, turns: Sequence[Turn], options: TranscriptOptions
) -> Kept:
    """Stores the turns not stored yet (as POST /memory would: embedded, windowed, in the
    session's order); a turn stored by an earlier call is left as it is."""
    memories = transcript_memories(scope, turns, options)
    kept = Kept()
    for memory in memories:
        kept.turn_ids.setdefault(memory.source["message_id"], []).append(memory.id)
    existing = await transcripts.stored_turns(stores.graph, scope, [m.id for m in memories])
    fresh = [m for m in memories if m.id not in existing]
    ours = {i for i, job in existing.items() if options.job and job == options.job}
    kept.new_messages = {
        m.source["message_id"] for m in memories if m.id not in existing or m.id in ours
    }
    if fresh:
        await store_memories(
            stores=stores,
            scope=scope,
            actor=ACTOR,
            memories=fresh,
            vectors={m.id: None for m in fresh},
        )
        kept.stored = [m.id for m in fresh]
    return kept
