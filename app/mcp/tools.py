"""The MCP tools and resources. Each is one request to the matching HTTP route (through
`Caller`), so it has no rules of its own; recall's answer is trimmed to what a model reads."""

import json
from typing import Annotated, Any, Literal
from urllib.parse import quote

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from app.mcp.caller import CallerResolver

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
DESTRUCTIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)
SECTIONS = (
    "agent-identity",
    "agent-knowledge",
    "agent-instructions",
    "user-facts",
    "user-preferences",
)

MemoryId = Annotated[str, Field(description="The memory's id (a UUID).", max_length=100)]
Tags = Annotated[list[str] | None, Field(description="Tags, e.g. ['project:engram', 'db'].")]
Importance = Annotated[float | None, Field(description="0–1 (0.5 = normal).", ge=0, le=1)]
SessionId = Annotated[
    str | None,
    Field(description="The conversation you are in (see GET /sessions/{id}).", max_length=200),
]
MemoryTypeName = Annotated[
    str | None,
    Field(
        description="Decision, Pattern, Preference, Style, Habit, Insight, Context, Fact or "
        "Event; absent = classified from the text."
    ),
]


class Turn(BaseModel):
    role: Literal["user", "assistant", "system", "tool"] = Field(description="Who said it.")
    content: str = Field(description="The message text.")
    name: str | None = Field(None, max_length=100, description="The speaker's name, if known.")


def given(**values: Any) -> dict[str, Any]:
    """The arguments the model gave (absent ones are left to the API's defaults)."""
    return {name: value for name, value in values.items() if value is not None}


def memory_path(memory_id: str) -> str:
    return f"/memory/{quote(memory_id, safe='')}"


def compact(item: dict[str, Any]) -> dict[str, Any]:
    memory = item["memory"]
    keys = ("content", "type", "tags", "importance", "timestamp", "session_id")
    return {"id": item["id"], "score": item["score"], **{k: memory.get(k) for k in keys}}


def register(server: MCPServer, caller: CallerResolver) -> None:
    """Adds Engram's tools and resources to an MCP server."""
    _memory_tools(server, caller)
    _recall_tools(server, caller)
    _graph_tools(server, caller)
    _resources(server, caller)


def _memory_tools(server: MCPServer, caller: CallerResolver) -> None:
    @server.tool(annotations=WRITES)
    async def remember(
        ctx: Context,
        messages: Annotated[list[Turn], Field(description="The turns, oldest first.")],
        session_id: Annotated[str, Field(description="The conversation's id.", max_length=200)],
        role: Annotated[
            Literal["user", "assistant"] | None,
            Field(description="Keep only facts about the user or the assistant; null = both."),
        ] = None,
    ) -> dict[str, Any]:
        """Extracts durable facts from conversation turns and stores them (in the background).

        Returns a job id; `remember_status` tells when the facts are stored."""
        turns = [turn.model_dump() for turn in messages]
        body = given(messages=turns, session_id=session_id, role=role)
        return await caller(ctx).call("POST", "/remember", json=body)

    @server.tool(annotations=READ_ONLY)
    async def remember_status(
        ctx: Context, job_id: Annotated[str, Field(description="From `remember`.", max_length=300)]
    ) -> dict[str, Any]:
        """The state of a `remember` job (queued, running, done, dead) and, once done, what it
        stored."""
        return await caller(ctx).call("GET", f"/remember/jobs/{quote(job_id, safe=':')}")

    @server.tool(annotations=WRITES)
    async def store(
        ctx: Context,
        content: Annotated[str, Field(description="The memory: one self-contained statement.")],
        type: MemoryTypeName = None,
        tags: Tags = None,
        importance: Importance = None,
        pinned: Annotated[
            bool, Field(description="Always part of core memories (identity, standing rules).")
        ] = False,
        metadata: Annotated[dict[str, Any] | None, Field(description="Free JSON.")] = None,
    ) -> dict[str, Any]:
        """Stores one memory as given (no extraction). Prefer `remember` for conversations."""
        body = given(
            content=content,
            type=type,
            tags=tags,
            importance=importance,
            pinned=pinned,
            metadata=metadata,
        )
        return await caller(ctx).call("POST", "/memory", json=body)

    @server.tool(annotations=READ_ONLY)
    async def get(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
        """One memory by id, with every field."""
        return (await caller(ctx).call("GET", memory_path(memory_id)))["memory"]

    @server.tool(annotations=WRITES)
    async def update(
        ctx: Context,
        memory_id: MemoryId,
        content: Annotated[str | None, Field(description="New text (re-embedded).")] = None,
        type: MemoryTypeName = None,
        tags: Annotated[list[str] | None, Field(description="Replaces all tags.")] = None,
        importance: Importance = None,
        pinned: Annotated[bool | None, Field(description="Pin to core memories.")] = None,
        metadata: Annotated[dict[str, Any] | None, Field(description="Replaces it.")] = None,
        expected_version: Annotated[
            int | None, Field(description="Refuse (conflict) unless the memory is at it.")
        ] = None,
    ) -> dict[str, Any]:
        """Changes a memory; only the fields given change, and its version goes up by one."""
        body = given(
            content=content,
            type=type,
            tags=tags,
            importance=importance,
            pinned=pinned,
            metadata=metadata,
            expected_version=expected_version,
        )
        return (await caller(ctx).call("PATCH", memory_path(memory_id), json=body))["memory"]

    @server.tool(annotations=DESTRUCTIVE)
    async def delete(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
        """Deletes a memory from every read (its history is kept)."""
        return await caller(ctx).call("DELETE", memory_path(memory_id))


def _recall_tools(server: MCPServer, caller: CallerResolver) -> None:
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
        )
        found = await caller(ctx).call("POST", "/recall", json=body)
        results = [compact(item) for item in found["results"]]
        return {
            "query": query,
            "count": len(results),
            "results": results,
            "degraded": found.get("degraded", []),
        }

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


def _graph_tools(server: MCPServer, caller: CallerResolver) -> None:
    @server.tool(annotations=WRITES)
    async def associate(
        ctx: Context,
        memory1_id: MemoryId,
        memory2_id: MemoryId,
        type: Annotated[
            str, Field(description="RELATES_TO, LEADS_TO, PREFERS_OVER, CONTRADICTS, …")
        ] = "RELATES_TO",
        strength: Annotated[float, Field(description="0–1.", ge=0, le=1)] = 0.5,
    ) -> dict[str, Any]:
        """Links two memories with a typed relationship."""
        body = {
            "memory1_id": memory1_id,
            "memory2_id": memory2_id,
            "type": type,
            "strength": strength,
        }
        return await caller(ctx).call("POST", "/associate", json=body)

    @server.tool(annotations=READ_ONLY)
    async def related(
        ctx: Context,
        memory_id: MemoryId,
        relationship_types: Annotated[
            list[str] | None, Field(description="Only these relationship types.")
        ] = None,
        max_depth: Annotated[int, Field(description="Hops.", ge=1, le=3)] = 1,
        limit: Annotated[int, Field(description="Results.", ge=1, le=200)] = 5,
    ) -> dict[str, Any]:
        """Memories linked to this one."""
        params: dict[str, Any] = {"max_depth": max_depth, "limit": limit}
        if relationship_types:
            params["relationship_types"] = ",".join(relationship_types)
        path = f"/memories/{quote(memory_id, safe='')}/related"
        return await caller(ctx).call("GET", path, params=params)

    @server.tool(annotations=READ_ONLY)
    async def entities(
        ctx: Context,
        category: Annotated[
            str | None,
            Field(description="people, organizations, places, tools, projects or concepts."),
        ] = None,
        limit: Annotated[int, Field(description="At most this many.", ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        """People, places, tools… that your memories mention, most referenced first."""
        params = given(category=category, limit=limit)
        return await caller(ctx).call("GET", "/entities", params=params)


def _resources(server: MCPServer, caller: CallerResolver) -> None:
    sections = ", ".join(SECTIONS)

    @server.resource(
        "engram://core/{section}",
        mime_type="application/json",
        description=f"Core memories: 'all', or one section ({sections}).",
    )
    async def core_memories(section: str, ctx: Context) -> str:
        if section != "all" and section not in SECTIONS:
            raise ResourceError(f"not_found: no core section {section!r}; use 'all' or {sections}")
        found = await caller(ctx).call("GET", "/core", kind=ResourceError)
        if section == "all":
            return json.dumps(found)
        by_slug = {name.lower().replace(" ", "-"): part for name, part in found["sections"].items()}
        return json.dumps(by_slug.get(section, []))

    @server.resource(
        "engram://memory/{memory_id}", mime_type="application/json", description="One memory."
    )
    async def memory(memory_id: str, ctx: Context) -> str:
        found = await caller(ctx).call("GET", memory_path(memory_id), kind=ResourceError)
        return json.dumps(found["memory"])
