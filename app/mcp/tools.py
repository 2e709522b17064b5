"""The MCP tools and resources. Each is one request to the matching HTTP route (through
`Caller`), so it has no rules of its own; recall's answer is trimmed to what a model reads."""

import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from urllib.parse import quote

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field, WithJsonSchema

from app.mcp.caller import CallerResolver
from app.models import IMPORTANCE_LEVELS

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
DESTRUCTIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)
DEFAULT_SESSION_PREFIX = "mcp-"
SECTIONS = (
    "agent-identity",
    "agent-knowledge",
    "agent-instructions",
    "user-facts",
    "user-preferences",
)

MemoryId = Annotated[str, Field(description="The memory's id (a UUID).", max_length=100)]
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


def default_session(now: datetime | None = None) -> str:
    """The session of a `remember` call that names none: one per UTC day. MCP over HTTP is
    stateless here (no connection to tie a session to), and a day keeps a desktop model's
    exchanges together without one session growing for ever."""
    return f"{DEFAULT_SESSION_PREFIX}{(now or datetime.now(UTC)).date().isoformat()}"


def given(**values: Any) -> dict[str, Any]:
    """The arguments the model gave (absent ones are left to the API's defaults)."""
    return {name: value for name, value in values.items() if value is not None}


def segment(value: str, safe: str = "") -> str:
    """A value as one segment of a path. Its dots are encoded too: a URL resolves a segment of
    "." or ".." (`/memory/M/artifacts/..` is `/memory/M`), so such a value would reach another
    route; encoded, it reaches the route it was meant for, which refuses it as an id."""
    return quote(value, safe=safe).replace(".", "%2E")


def memory_path(memory_id: str) -> str:
    return f"/memory/{segment(memory_id)}"


def artifact_path(memory_id: str, artifact_id: str | None = None) -> str:
    path = f"{memory_path(memory_id)}/artifacts"
    return f"{path}/{segment(artifact_id)}" if artifact_id else path


def is_text(content_type: str) -> bool:
    return content_type.startswith("text/") or content_type == "application/json"


def compact(item: dict[str, Any]) -> dict[str, Any]:
    memory = item["memory"]
    keys = ("content", "type", "tags", "importance", "timestamp", "session_id")
    return {"id": item["id"], "score": item["score"], **{k: memory.get(k) for k in keys}}


def register(server: MCPServer, caller: CallerResolver) -> None:
    """Adds Engram's tools and resources to an MCP server."""
    _memory_tools(server, caller)
    _recall_tools(server, caller)
    _graph_tools(server, caller)
    _artifact_tools(server, caller)
    _resources(server, caller)


def _memory_tools(server: MCPServer, caller: CallerResolver) -> None:
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
        path = f"/memories/{segment(memory_id)}/related"
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


ArtifactId = Annotated[str, Field(description="The artifact's id (a UUID).", max_length=100)]
INLINE_BINARY = 1 << 20  # larger binary artifacts come as a download URL, not inline


def _artifact_tools(server: MCPServer, caller: CallerResolver) -> None:
    @server.tool(annotations=WRITES)
    async def save_artifact(
        ctx: Context,
        memory_id: MemoryId,
        filename: Annotated[str, Field(description="e.g. 'notes.md'.", max_length=1000)],
        content: Annotated[str | None, Field(description="Text content.")] = None,
        content_base64: Annotated[str | None, Field(description="Or bytes, base64.")] = None,
        content_type: Annotated[
            str | None, Field(description="Media type; absent = from the filename.")
        ] = None,
    ) -> dict[str, Any]:
        """Attaches a file (a long document, notes, an image) to a memory: slow memory, read
        back with `get_artifact`. Give `content` for text or `content_base64` for bytes."""
        body = given(
            filename=filename,
            content=content,
            content_base64=content_base64,
            content_type=content_type,
        )
        return await caller(ctx).call("POST", artifact_path(memory_id), json=body)

    @server.tool(annotations=READ_ONLY)
    async def list_artifacts(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
        """The files attached to a memory (id, filename, type, size)."""
        return await caller(ctx).call("GET", artifact_path(memory_id))

    @server.tool(annotations=READ_ONLY)
    async def get_artifact(
        ctx: Context,
        memory_id: MemoryId,
        artifact_id: ArtifactId,
        offset: Annotated[int, Field(description="Text: first character.", ge=0)] = 0,
        limit: Annotated[int, Field(description="Text: characters.", ge=1, le=100_000)] = 10_000,
    ) -> dict[str, Any]:
        """An attached file: text in pages (`next_offset` gives the next one); other files up
        to 1 MB inline as base64, larger ones as a download URL."""
        api = caller(ctx)
        listed = await api.call("GET", artifact_path(memory_id))
        meta = next((a for a in listed["artifacts"] if a["id"] == artifact_id), None)
        path = artifact_path(memory_id, artifact_id)
        if meta is None or is_text(meta["content_type"]):
            return await api.call("GET", path, params={"offset": offset, "limit": limit})
        if meta["size"] <= INLINE_BINARY:
            return await api.call("GET", path, params={"encoding": "base64"})
        link = await api.call("POST", f"{path}/url")
        return {"artifact": meta, "url": link["url"], "expires_at": link["expires_at"]}

    @server.tool(annotations=DESTRUCTIVE)
    async def delete_artifact(
        ctx: Context, memory_id: MemoryId, artifact_id: ArtifactId
    ) -> dict[str, Any]:
        """Deletes a file attached to a memory (the memory stays)."""
        return await caller(ctx).call("DELETE", artifact_path(memory_id, artifact_id))


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
