"""The MCP tools that write and read single memories: `remember` (with its job's status),
`store`, `get`, `update` and `delete`."""

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field, WithJsonSchema

from app.mcp.caller import CallerResolver
from app.mcp.calls import DESTRUCTIVE, READ_ONLY, WRITES, MemoryId, given, memory_path, segment
from app.models import IMPORTANCE_LEVELS

DEFAULT_SESSION_PREFIX = "mcp-"
Tags = Annotated[list[str] | None, Field(description="Tags, e.g. ['project:engram', 'db'].")]
# Checked by the API, as for REST: a number 0–1 or one of mnemory's levels.
Importance = Annotated[
    float | str | None,
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "number", "minimum": 0, "maximum": 1},
                {"type": "string", "enum": list(IMPORTANCE_LEVELS)},
                {"type": "null"},
            ]
        }
    ),
    Field(description="0–1, or low (0.1) / normal (0.4) / high (0.7) / critical (1.0)."),
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


def default_session(now: datetime | None = None) -> str:
    """The session of a `remember` call that names none: one per UTC day. MCP over HTTP is
    stateless here (no connection to tie a session to), and a day keeps a desktop model's
    exchanges together without one session growing for ever."""
    return f"{DEFAULT_SESSION_PREFIX}{(now or datetime.now(UTC)).date().isoformat()}"


def register(server: MCPServer, caller: CallerResolver) -> None:
    """Adds the memory tools to an MCP server."""

    @server.tool(annotations=WRITES)
    async def remember(
        ctx: Context,
        messages: Annotated[list[Turn], Field(description="The turns, oldest first.")],
        session_id: Annotated[
            str | None,
            Field(
                description="The conversation's id; absent = today's MCP session "
                "('mcp-YYYY-MM-DD', UTC).",
                min_length=1,
                max_length=200,
            ),
        ] = None,
        role: Annotated[
            Literal["user", "assistant"] | None,
            Field(description="Keep only facts about the user or the assistant; null = both."),
        ] = None,
    ) -> dict[str, Any]:
        """Extracts durable facts from conversation turns and stores them (in the background).

        Returns a job id; `remember_status` tells when the facts are stored."""
        turns = [turn.model_dump() for turn in messages]
        body = given(messages=turns, session_id=session_id or default_session(), role=role)
        return await caller(ctx).call("POST", "/remember", json=body)

    @server.tool(annotations=READ_ONLY)
    async def remember_status(
        ctx: Context, job_id: Annotated[str, Field(description="From `remember`.", max_length=300)]
    ) -> dict[str, Any]:
        """The state of a `remember` job (queued, running, done, dead) and, once done, what it
        stored."""
        return await caller(ctx).call("GET", f"/remember/jobs/{segment(job_id, safe=':')}")

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
