"""LlamaIndex: `EngramMemoryBlock`, a long-term memory block for `llama_index.core.memory.Memory`.
`pip install "engram-client[llamaindex]"`.

LlamaIndex's Memory keeps the recent chat itself and flushes older messages to its blocks
(`aput`); before each turn it asks every block for its text (`aget`). The block answers the
first with Engram's /remember (facts extracted and kept, contradictions superseded) and the
second with /recall/context for the latest user message: the memory block interface is Engram's
own remember/context pair, which is why LlamaIndex was chosen over CrewAI (docs/decisions.md).
"""

from typing import Any

from engram_client._extras import needs

try:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.memory import BaseMemoryBlock
except ImportError as missing:  # the extra is not installed
    raise needs("llamaindex", __name__) from missing

from pydantic import ConfigDict, Field

from engram_client.async_client import AsyncEngram
from engram_client.params import Message

ROLES = {MessageRole.USER: "user", MessageRole.ASSISTANT: "assistant"}


def turns(messages: list[ChatMessage]) -> list[Message]:
    """The user's and the assistant's messages with text (system and tool ones are not kept)."""
    return [
        {"role": ROLES[m.role], "content": m.content}  # type: ignore[typeddict-item]
        for m in messages
        if m.role in ROLES and m.content
    ]


def latest_user_text(messages: list[ChatMessage] | None) -> str:
    for message in reversed(messages or []):
        if message.role == MessageRole.USER and message.content:
            return message.content
    return ""


class EngramMemoryBlock(BaseMemoryBlock[str]):
    """Engram as a LlamaIndex memory block, for one conversation `session_id`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "engram"
    description: str | None = "Long-term memory from Engram"
    client: AsyncEngram
    session_id: str = "default"
    max_tokens: int = Field(1000, description="Budget of the context block.")
    wait: bool = Field(False, description="Wait for /remember's job before returning.")

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        block = await self.client.context(
            latest_user_text(messages), max_tokens=self.max_tokens, session_id=self.session_id
        )
        return block.context

    async def _aput(self, messages: list[ChatMessage]) -> None:
        kept = turns(messages)
        if kept:
            await self.client.remember(kept, session_id=self.session_id, wait=self.wait)
