"""Conversations as /remember keeps them: a session's messages (the Context Archive), its
record, and its MemoryLess switch.

The messages are the session's transcript turns, read in the caller's scope: /remember stores
them in the conversation's agent scope, so a caller sees them with that agent's X-Agent-Id (or
an ancestor's), never as a sibling agent or another user.
"""

from typing import Annotated

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from app.deps import ScopeDep, StoresDep
from app.errors import NotFound
from app.models import to_iso, utc_now
from app.storage.graph import sessions, transcripts
from app.storage.graph.transcripts import Message

router = APIRouter(tags=["remember"])

SessionId = Annotated[str, Path(min_length=1, max_length=200, description="The conversation.")]


class MessageOut(BaseModel):
    id: str = Field(description="The memory id of the message's (first) transcript turn.")
    message_id: str = Field(description="The client's message id (or the one it was given).")
    role: str = Field(description="user or assistant.")
    name: str | None = Field(None, description="The speaker's name, if the client sent one.")
    content: str = Field(description="The message verbatim (a long one's chunks joined).")
    timestamp: str = Field(description="When it was said.")
    created_at: str = Field(description="When it was recorded.")


class MessagesPage(BaseModel):
    session_id: str = Field(description="The conversation.")
    messages: list[MessageOut] = Field(description="Its messages, oldest first.")
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class SessionOut(BaseModel):
    session_id: str = Field(description="The conversation.")
    created_at: str = Field(description="Its first /remember call or setting.")
    calls: int = Field(description="/remember calls processed.")
    messages_posted: int = Field(description="Messages those calls carried (reposts included).")
    last_activity: str = Field(description="Its latest call.")
    memoryless: bool = Field(description="Whether nothing of it is stored or read.")


class SessionSettings(BaseModel):
    memoryless: bool = Field(
        description="true: /remember stores nothing of this session and recall naming it reads "
        "nothing; false: back to normal (what was not stored stays so)."
    )


@router.get("/sessions/{session_id}/messages", response_model=MessagesPage)
async def session_messages(
    session_id: SessionId,
    stores: StoresDep,
    scope: ScopeDep,
    limit: Annotated[int, Query(ge=1, le=200, description="Messages per page.")] = 50,
    cursor: Annotated[
        str | None, Query(max_length=64, description="From the previous page.")
    ] = None,
) -> MessagesPage:
    """The session's messages in the order they were posted, each verbatim (404 if you see
    none of them)."""
    page, next_cursor = await transcripts.session_page(
        stores.graph, scope, session_id, after=cursor or "", limit=limit
    )
    if not page and cursor is None:
        raise NotFound(f"Session {session_id} not found")
    return MessagesPage(
        session_id=session_id, messages=[_message(m) for m in page], next_cursor=next_cursor
    )


def _message(message: Message) -> MessageOut:
    return MessageOut(
        id=message.id,
        message_id=message.message_id,
        role=message.role,
        name=message.name,
        content=message.content,
        timestamp=message.timestamp,
        created_at=message.created_at,
    )


@router.get("/sessions/{session_id}", response_model=SessionOut)
async def session(session_id: SessionId, stores: StoresDep, scope: ScopeDep) -> SessionOut:
    """The session's record: when it began, its calls and messages, whether it is memoryless."""
    record = await sessions.session_info(stores.graph, scope, session_id)
    if record is None:
        raise NotFound(f"Session {session_id} not found")
    return SessionOut(**record)


@router.put("/sessions/{session_id}", response_model=SessionOut)
async def update_session(
    session_id: SessionId, body: SessionSettings, stores: StoresDep, scope: ScopeDep
) -> SessionOut:
    """Makes the session memoryless (or not); a session not seen yet is created, so that a
    conversation can be memoryless from its first message."""
    now = to_iso(utc_now())
    record = await sessions.set_memoryless(stores.graph, scope, session_id, body.memoryless, now)
    if record is None:
        raise NotFound(f"Session {session_id} not found")
    return SessionOut(**record)
