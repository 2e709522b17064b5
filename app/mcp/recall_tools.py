"""The MCP tools that read what is known: `recall` (its answer trimmed to what a model reads),
`context`, `core` and `profile`."""

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from app.mcp.caller import CallerResolver
from app.mcp.calls import READ_ONLY, given

SessionId = Annotated[
    str | None,
    Field(description="The conversation you are in (see GET /sessions/{id}).", max_length=200),
]


def compact(item: dict[str, Any]) -> dict[str, Any]:
    memory = item["memory"]
    keys = ("content", "type", "tags", "importance", "timestamp", "session_id")
    return {"id": item["id"], "score": item["score"], **{k: memory.get(k) for k in keys}}


def register(server: MCPServer, caller: CallerResolver) -> None:
    """Adds the recall tools to an MCP server."""

    @server.tool(annotations=READ_ONLY)
    async def recall(
        ctx: Context,
        query: Annotated[str, Field(description="What to look for, in plain words.")],
        limit: Annotated[int, Field(description="Results wanted.", ge=1, le=100)] = 5,
        tags: Annotated[
            list[str] | None, Field(description="Only memories with these tags.")
        ] = None,
        type: Annotated[list[str] | None, Field(description="Only these memory types.")] = None,
        time_query: Annotated[
            str | None, Field(description="e.g. 'yesterday', 'last 3 days', 'in March 2023'.")
        ] = None,
        start: Annotated[str | None, Field(description="Window start, ISO-8601.")] = None,
        end: Annotated[str | None, Field(description="Window end, ISO-8601.")] = None,
        expand_relations: Annotated[
            bool, Field(description="Also return memories linked to the results.")
        ] = False,
        session_id: SessionId = None,
        include_artifacts: Annotated[
            bool, Field(description="Also search attached text files (slow memory).")
        ] = False,
    ) -> dict[str, Any]:
        """Finds memories by meaning and keywords, best first."""
        body = given(
            query=query,
            limit=limit,
            tags=tags,
            type=type,
            time_query=time_query,
            start=start,
            end=end,
            expand_relations=expand_relations,
            session_id=session_id,
            include_artifacts=include_artifacts or None,
        )
        found = await caller(ctx).call("POST", "/recall", json=body)
        results = [compact(item) for item in found["results"]]
        answer = {
            "query": query,
            "count": len(results),
            "results": results,
            "degraded": found.get("degraded", []),
        }
        if include_artifacts:
            answer["artifacts"] = found.get("artifacts")
        return answer

    @server.tool(annotations=READ_ONLY)
    async def context(
        ctx: Context,
        query: Annotated[
            str, Field(description="What the conversation is about; empty = core memories only.")
        ] = "",
        max_tokens: Annotated[int, Field(description="Budget.", ge=50, le=32000)] = 1000,
        include_core: Annotated[bool, Field(description="Core memories first.")] = True,
        session_id: SessionId = None,
        session_messages: Annotated[
            int | None,
            Field(description="The session's latest messages to open with.", ge=0, le=50),
        ] = None,
    ) -> dict[str, Any]:
        """A prompt-ready block of what is known: the session's latest messages (with a
        session_id), core memories, then what the query recalls."""
        body = {
            "query": query,
            "max_tokens": max_tokens,
            "include_core": include_core,
            **given(session_id=session_id, session_messages=session_messages),
        }
        return await caller(ctx).call("POST", "/recall/context", json=body)

    @server.tool(annotations=READ_ONLY)
    async def core(ctx: Context) -> dict[str, Any]:
        """Core memories: the pinned ones by section, the most important, the recent."""
        return await caller(ctx).call("GET", "/core")

    @server.tool(annotations=READ_ONLY)
    async def profile(ctx: Context) -> dict[str, Any]:
        """What is known about the user now: current facts by attribute, and the newest
        reflection (a short profile) — one call for a system prompt."""
        return await caller(ctx).call("GET", "/profile")
