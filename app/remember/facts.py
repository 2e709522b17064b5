"""The shapes of /remember extraction: conversation turns in, standalone facts out."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from app.models import MemoryType

USER = "user"
ASSISTANT = "assistant"


@dataclass
class Turn:
    """One message of the posted conversation."""

    role: str  # "user" | "assistant" | "system" | "tool"
    content: str
    timestamp: datetime  # aware (UTC, or the speaker's offset: "yesterday" is on their calendar)
    message_id: str | None = None
    name: str | None = None  # the speaker's name, when the client gave one (OpenAI's `name`)


@dataclass
class ExtractedFact:
    """A durable fact found in a conversation, not yet stored."""

    content: str  # standalone, third person: "User lives in Prague." / "Assistant's name is Ava."
    subject: str  # "user" | "assistant"
    type: MemoryType
    importance: float
    confidence: float
    categories: list[str]
    ttl_days: float | None = None
    event_time: datetime | None = None
    # Facts with the same subject and slot but different values contradict each other: "residence",
    # "employer", "name", "age", "job_title", "favorite:<thing>", "likes:<thing>", "pet:<kind>"…
    slot: str | None = None
    value: str | None = None
    message_id: str | None = None
    also_from: list[str] = field(default_factory=list)  # the messages that said it again


def allowed_subjects(role: str | None, agent_id: str | None) -> frozenset[str]:
    """Whose facts a /remember call may keep: facts about the assistant need an agent scope."""
    if role == USER:
        return frozenset({USER})
    if role == ASSISTANT:
        return frozenset({ASSISTANT}) if agent_id else frozenset()
    return frozenset({USER, ASSISTANT}) if agent_id else frozenset({USER})


def filter_by_attribution(
    facts: Iterable[ExtractedFact], role: str | None, agent_id: str | None
) -> list[ExtractedFact]:
    """The facts whose subject the call's role and agent scope allow (see `allowed_subjects`)."""
    allowed = allowed_subjects(role, agent_id)
    return [fact for fact in facts if fact.subject in allowed]
