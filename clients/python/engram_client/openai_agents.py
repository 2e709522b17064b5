"""OpenAI Agents SDK: `engram_function_tools` — remember, recall and context as function
tools (store too, on request). `pip install "engram-client[openai-agents]"`.

    agent = Agent(name="assistant", tools=engram_function_tools(AsyncEngram(), session_id="s1"))
"""

from collections.abc import Awaitable, Callable

from engram_client._extras import needs

try:
    from agents import FunctionTool, function_tool
except ImportError as missing:  # the extra is not installed
    raise needs("openai-agents", __name__) from missing

from engram_client.async_client import AsyncEngram
from engram_client.tools import CONTEXT, RECALL, REMEMBER, STORE, MemoryTools


def engram_function_tools(
    client: AsyncEngram,
    *,
    session_id: str = "default",
    recall_limit: int = 5,
    max_tokens: int = 1000,
    include_store: bool = False,
) -> list[FunctionTool]:
    """The tools over `client`, for the conversation `session_id`."""
    tools = MemoryTools(None, client, session_id, recall_limit, max_tokens)

    async def remember(text: str) -> str:
        """Text worth keeping, in the user's words or a summary of them.

        Args:
            text: What was said that should be remembered.
        """
        return await tools.aremember(text)

    async def recall(query: str, limit: int = recall_limit) -> str:
        """What to look for.

        Args:
            query: What to look for, in plain words.
            limit: How many memories at most.
        """
        return await tools.arecall(query, limit)

    async def context(topic: str = "") -> str:
        """A topic to gather what is known about.

        Args:
            topic: What the conversation is about; empty for the core memories.
        """
        return await tools.acontext(topic)

    async def store(content: str, tags: list[str] | None = None) -> str:
        """One statement to keep.

        Args:
            content: One self-contained statement.
            tags: Tags to file it under.
        """
        return await tools.astore(content, tags)

    made: list[tuple[Callable[..., Awaitable[str]], str]] = [
        (remember, REMEMBER),
        (recall, RECALL),
        (context, CONTEXT),
    ]
    if include_store:
        made.append((store, STORE))
    return [
        function_tool(func, name_override=func.__name__, description_override=text)
        for func, text in made
    ]
