"""engram_client.llamaindex.EngramMemoryBlock on a real Engram, through LlamaIndex's own
Memory: messages flushed from short-term memory reach /remember, and the block's text (from
/recall/context) is put in front of the chat. No LLM: the extraction is Engram's rules."""

import uuid

from engram_client import AsyncEngram
from engram_client.llamaindex import EngramMemoryBlock
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import Memory

from tests.conftest import ALICE_KEY


async def test_the_block_remembers_and_recalls(engram_url: str):
    session = f"li-{uuid.uuid4().hex[:8]}"
    async with AsyncEngram(engram_url, api_key=ALICE_KEY, agent_id="llamaindex") as client:
        block = EngramMemoryBlock(client=client, session_id=session, wait=True)
        await block.aput(
            [
                ChatMessage(role="system", content="You are helpful."),
                ChatMessage(role="user", content="I moved to Valencia last year."),
                ChatMessage(role="assistant", content="Noted!"),
            ]
        )
        text = await block.aget([ChatMessage(role="user", content="Where do I live now?")])
        assert "Valencia" in text and "<memories" in text

        memory = Memory.from_defaults(
            session_id=session,
            token_limit=40,
            chat_history_token_ratio=0.3,
            token_flush_size=8,
            memory_blocks=[block],
        )
        for words in ["My bike is a blue Brompton.", "Sure.", "I cycle to work daily.", "Ok."]:
            role = "user" if words.startswith(("My", "I ")) else "assistant"
            await memory.aput(ChatMessage(role=role, content=words))
        chat = await memory.aget()
        assert "Brompton" in str(chat[0].content)  # flushed, remembered, recalled
