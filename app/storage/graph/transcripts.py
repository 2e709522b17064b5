"""Cypher for transcript turns (app/remember/transcript.py): a session's messages in order, its
latest ones, and the marks that tie turns to the facts extracted from them."""

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.models import Memory
from app.scope import Scope
from app.storage.graph.cypher import IN_SCOPE
from app.storage.graph.records import memories_of, parse_json_property, scope_params
from app.storage.graph.store import GraphStore

CHUNKS_READ = 3  # chunks read per message wanted: a long message is a few chunks

# Record time orders a session's turns as they were posted (consecutive within a call).
SESSION_MESSAGES = f"""
MATCH (m:Memory {{session_id: $session_id}})
WHERE {IN_SCOPE} AND m.layer = 'transcript' AND m.created_at > $after
RETURN properties(m) ORDER BY m.created_at LIMIT $limit
"""
LATEST_MESSAGES = f"""
MATCH (m:Memory {{session_id: $session_id}})
WHERE {IN_SCOPE} AND m.layer = 'transcript' AND NOT m.archived
RETURN properties(m) ORDER BY m.created_at DESC LIMIT $limit
"""
# The turns a superseded fact came from, less those the new fact came from, answer with an
# outdated statement: recall ranks them below the current fact (rank.py `outdated`).
MARK_OUTDATED = """
MATCH (m:Memory) WHERE m.id IN $ids AND m.user_id = $user_id AND m.layer = 'transcript'
SET m.outdated_by = $fact_id
"""
# The ids of these turns the job `job` did not store itself (a repost, not a re-run).
STORED_BEFORE = f"""
MATCH (m:Memory) WHERE m.id IN $ids AND {IN_SCOPE}
RETURN m.id, m.source
"""


async def session_messages(
    graph: GraphStore, scope: Scope, session_id: str, *, after: str, limit: int
) -> list[Memory]:
    """The session's turns in order, those recorded after `after` (a created_at), at most
    `limit`."""
    params = {"session_id": session_id, "after": after, "limit": limit, **scope_params(scope)}
    return memories_of(await graph.ro_query(SESSION_MESSAGES, params))


async def latest_messages(
    graph: GraphStore, scope: Scope, session_id: str, limit: int
) -> list[Memory]:
    """The session's last `limit` turns, oldest first."""
    params = {"session_id": session_id, "limit": limit, **scope_params(scope)}
    return list(reversed(memories_of(await graph.ro_query(LATEST_MESSAGES, params))))


async def mark_outdated(
    graph: GraphStore, user_id: str, turn_ids: Sequence[str], fact_id: str
) -> None:
    if turn_ids:
        params = {"ids": list(turn_ids), "user_id": user_id, "fact_id": fact_id}
        await graph.query(MARK_OUTDATED, params)


async def stored_turns(
    graph: GraphStore, scope: Scope, turn_ids: Sequence[str]
) -> dict[str, str | None]:
    """The turns among `turn_ids` that exist, each with the job that stored it."""
    if not turn_ids:
        return {}
    params = {"ids": list(turn_ids), **scope_params(scope)}
    rows = await graph.ro_query(STORED_BEFORE, params)
    return {
        memory_id: parse_json_property("source", source, memory_id).get("remember_job")
        for memory_id, source in rows
    }


@dataclass
class Message:
    """One message of a session: its chunks (transcript memories) joined with a space."""

    id: str  # the memory id of its first chunk
    message_id: str
    role: str
    name: str | None
    content: str
    timestamp: str
    created_at: str
    chunk_ids: list[str] = field(default_factory=list)
    complete: bool = True  # False: its first chunk is not among the turns it was built from
    last_created_at: str = ""  # of its last chunk: where a page after it starts


def messages_of(turns: Sequence[Memory]) -> list[Message]:
    """The turns (chunks, in order) as messages: consecutive chunks of one message joined."""
    messages: list[Message] = []
    for turn in turns:
        message_id = turn.source.get("message_id") or turn.id
        if messages and messages[-1].message_id == message_id:
            last = messages[-1]
            last.content = f"{last.content} {turn.content}"
            last.chunk_ids.append(turn.id)
            last.last_created_at = turn.created_at
            continue
        messages.append(_message(turn, message_id))
    return messages


def _message(turn: Memory, message_id: str) -> Message:
    part = turn.metadata.get("transcript") or {}
    return Message(
        id=turn.id,
        message_id=message_id,
        role=turn.role.value,
        name=turn.speaker,
        content=turn.content,
        timestamp=turn.timestamp,
        created_at=turn.created_at,
        chunk_ids=[turn.id],
        complete=not part.get("chunk"),
        last_created_at=turn.created_at,
    )


async def session_page(
    graph: GraphStore, scope: Scope, session_id: str, *, after: str, limit: int
) -> tuple[list[Message], str | None]:
    """At most `limit` whole messages of the session recorded after `after`, and the cursor of
    the next page (None on the last). Chunks are read until one more message than asked has
    begun, so that a message is never split across pages."""
    turns: list[Memory] = []
    cursor = after
    while True:
        batch = await session_messages(graph, scope, session_id, after=cursor, limit=limit + 1)
        turns += batch
        messages = messages_of(turns)
        if len(batch) <= limit or len(messages) > limit:
            break
        cursor = batch[-1].created_at
    page = messages[:limit]
    more = len(messages) > limit
    return page, page[-1].last_created_at if more else None


async def latest_turns(
    graph: GraphStore, scope: Scope, session_id: str, count: int
) -> list[Message]:
    """The session's last `count` whole messages (not archived), oldest first. Chunks are read
    up to CHUNKS_READ per message; a message whose first chunk falls outside them is left out."""
    if count <= 0:
        return []
    turns = await latest_messages(graph, scope, session_id, count * CHUNKS_READ)
    messages = messages_of(turns)[-count:]
    return [message for message in messages if message.complete]
