"""Memory tools for an agent, framework-neutral: `remember`, `store`, `recall` and `context`,
each sync and async, answering in text a model reads well. The LangChain and OpenAI Agents
adapters wrap these, so every framework's tools say and do the same."""

from dataclasses import dataclass

from engram_client.async_client import AsyncEngram
from engram_client.client import Engram
from engram_client.models import Context, Recalled, RememberAccepted, Stored
from engram_client.params import Message

REMEMBER = (
    "Saves what was said worth keeping: Engram extracts the durable facts from the text in the "
    "background (an update replaces what it contradicts)."
)
STORE = "Stores one self-contained statement as a memory, exactly as given."
RECALL = "Finds memories by meaning and keywords, best first, each with its id and score."
CONTEXT = "Everything known that bears on a topic, as one block ready to read."


def said_remembered(accepted: RememberAccepted) -> str:
    if accepted.job_id is None:
        return "Nothing stored: this conversation is memoryless."
    return f"Remembering ({accepted.messages} message(s), job {accepted.job_id})."


def said_stored(stored: Stored) -> str:
    return f"Stored memory {stored.memory_id}."


def said_recalled(found: Recalled) -> str:
    if not found.results:
        return "No memories found."
    return "\n".join(
        f"- [{hit.id}] {hit.memory.content} (score {hit.score:.2f})" for hit in found.results
    )


def said_context(block: Context) -> str:
    return block.context or "Nothing is known about this yet."


@dataclass
class MemoryTools:
    """The four tools over one client (or both), for one conversation `session_id`."""

    client: Engram | None = None
    aclient: AsyncEngram | None = None
    session_id: str = "default"
    recall_limit: int = 5
    max_tokens: int = 1000

    def sync(self) -> Engram:
        if self.client is None:
            raise RuntimeError("These tools were made with an AsyncEngram only: call them async")
        return self.client

    def asynchronous(self) -> AsyncEngram:
        if self.aclient is None:
            raise RuntimeError("These tools were made with an Engram client only: call them sync")
        return self.aclient

    def remember(self, text: str) -> str:
        messages: list[Message] = [{"role": "user", "content": text}]
        return said_remembered(self.sync().remember(messages, session_id=self.session_id))

    async def aremember(self, text: str) -> str:
        messages: list[Message] = [{"role": "user", "content": text}]
        accepted = await self.asynchronous().remember(messages, session_id=self.session_id)
        return said_remembered(accepted)

    def store(self, content: str, tags: list[str] | None = None) -> str:
        return said_stored(self.sync().store(content, tags=tags or []))

    async def astore(self, content: str, tags: list[str] | None = None) -> str:
        return said_stored(await self.asynchronous().store(content, tags=tags or []))

    def recall(self, query: str, limit: int | None = None) -> str:
        found = self.sync().recall(query, limit=limit or self.recall_limit)
        return said_recalled(found)

    async def arecall(self, query: str, limit: int | None = None) -> str:
        found = await self.asynchronous().recall(query, limit=limit or self.recall_limit)
        return said_recalled(found)

    def context(self, topic: str = "") -> str:
        block = self.sync().context(topic, max_tokens=self.max_tokens, session_id=self.session_id)
        return said_context(block)

    async def acontext(self, topic: str = "") -> str:
        block = await self.asynchronous().context(
            topic, max_tokens=self.max_tokens, session_id=self.session_id
        )
        return said_context(block)
