"""LangChain: `EngramRetriever` (a `BaseRetriever` over Engram's recall) and `engram_tools`
(remember, store, recall, context as LangChain tools). `pip install "engram-client[langchain]"`.
"""

from collections.abc import Awaitable, Callable
from typing import Any

from engram_client._extras import needs

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.tools import BaseTool, StructuredTool
except ImportError as missing:  # the extra is not installed
    raise needs("langchain", __name__) from missing

from pydantic import ConfigDict, Field

from engram_client.async_client import AsyncEngram
from engram_client.client import Engram
from engram_client.models import Recalled
from engram_client.tools import CONTEXT, RECALL, REMEMBER, STORE, MemoryTools


def documents(found: Recalled) -> list[Document]:
    """Each hit as a Document: the memory's text, and what else it is in `metadata`."""
    return [
        Document(
            page_content=hit.memory.content,
            id=hit.id,
            metadata={
                "id": hit.id,
                "score": hit.score,
                "type": hit.memory.type,
                "tags": hit.memory.tags,
                "labels": hit.memory.labels,
                "timestamp": hit.memory.timestamp.isoformat(),
                "agent_id": hit.memory.agent_id,
            },
        )
        for hit in found.results
    ]


class EngramRetriever(BaseRetriever):
    """Documents from Engram's recall. `k`: results; `search_kwargs`: any other parameter of
    recall (`tags`, `labels`, `type`, `time_query`, `expand_relations`…)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Engram | None = None
    aclient: AsyncEngram | None = None
    k: int = 5
    search_kwargs: dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.client is None:
            raise RuntimeError("EngramRetriever was made without a sync client: use ainvoke")
        return documents(self.client.recall(query, limit=self.k, **self.search_kwargs))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.aclient is None:
            raise RuntimeError("EngramRetriever was made without an AsyncEngram: use invoke")
        found = await self.aclient.recall(query, limit=self.k, **self.search_kwargs)
        return documents(found)


def engram_tools(
    client: Engram | None = None,
    aclient: AsyncEngram | None = None,
    *,
    session_id: str = "default",
    recall_limit: int = 5,
    max_tokens: int = 1000,
) -> list[BaseTool]:
    """`remember`, `store`, `recall` and `context` as LangChain tools (sync with `client`,
    async with `aclient`), for the conversation `session_id`."""
    tools = MemoryTools(client, aclient, session_id, recall_limit, max_tokens)
    made: list[tuple[str, str, Callable[..., str], Callable[..., Awaitable[str]]]] = [
        ("remember", REMEMBER, tools.remember, tools.aremember),
        ("store", STORE, tools.store, tools.astore),
        ("recall", RECALL, tools.recall, tools.arecall),
        ("context", CONTEXT, tools.context, tools.acontext),
    ]
    return [
        StructuredTool.from_function(func=func, coroutine=coroutine, name=name, description=text)
        for name, text, func, coroutine in made
    ]
