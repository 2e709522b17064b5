"""The MCP tools and resources: each calls what the matching HTTP route calls, in the caller's
scope, and answers with the same JSON (recall trimmed to what a model needs to read)."""

import json
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from app.enrichment import router as entities_routes
from app.errors import NotFound
from app.mcp.caller import CallerResolver, reported
from app.memories import service as memories
from app.memories.dependencies import valid_memory_id
from app.memories.router import public
from app.memories.schemas import MemoryCreate, MemoryUpdate
from app.recall import core_router
from app.recall import router as recall_routes
from app.recall.context import SECTIONS
from app.relations import router as relation_routes
from app.relations import service as relations
from app.remember import router as remember_routes

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
DESTRUCTIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)

MemoryId = Annotated[str, Field(description="The memory's id (a UUID).", max_length=100)]
Tags = Annotated[list[str] | None, Field(description="Tags, e.g. ['project:engram', 'db'].")]
Importance = Annotated[float | None, Field(description="0–1 (0.5 = normal).", ge=0, le=1)]
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


def _given(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


def _compact(item: dict[str, Any]) -> dict[str, Any]:
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
        with reported():
            who = caller(ctx)
            body = remember_routes.RememberRequest.model_validate(
                _given(messages=[t.model_dump() for t in messages], session_id=session_id,
                       role=role)
            )  # fmt: skip
            accepted = await remember_routes.remember(body, who.runtime, who.scope)
            return accepted.model_dump(mode="json")

    @server.tool(annotations=READ_ONLY)
    async def remember_status(
        ctx: Context, job_id: Annotated[str, Field(description="From `remember`.", max_length=300)]
    ) -> dict[str, Any]:
        """The state of a `remember` job (queued, running, done, dead) and, once done, what it
        stored."""
        with reported():
            who = caller(ctx)
            job = await remember_routes.remember_job(who.runtime, who.scope, job_id)
            return job.model_dump(mode="json")

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
        with reported():
            who = caller(ctx)
            data = MemoryCreate.model_validate(
                _given(content=content, type=type, tags=tags, importance=importance,
                       pinned=pinned, metadata=metadata)
            )  # fmt: skip
            stored = await memories.store(
                stores=who.runtime.stores, scope=who.scope, actor=who.principal.actor, data=data
            )
            return {"memory_id": stored.memory.id, "memory": public(stored.memory)}

    @server.tool(annotations=READ_ONLY)
    async def get(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
        """One memory by id, with every field."""
        with reported():
            who = caller(ctx)
            memory_id = await valid_memory_id(memory_id)
            found = await memories.get(stores=who.runtime.stores, scope=who.scope,
                                       memory_id=memory_id)  # fmt: skip
            return public(found)

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
        with reported():
            who = caller(ctx)
            memory_id = await valid_memory_id(memory_id)
            data = MemoryUpdate.model_validate(
                _given(content=content, type=type, tags=tags, importance=importance,
                       pinned=pinned, metadata=metadata, expected_version=expected_version)
            )  # fmt: skip
            changed = await memories.update(
                stores=who.runtime.stores, scope=who.scope, actor=who.principal.actor,
                memory_id=memory_id, data=data,
            )  # fmt: skip
            return public(changed)

    @server.tool(annotations=DESTRUCTIVE)
    async def delete(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
        """Deletes a memory from every read (its history is kept)."""
        with reported():
            who = caller(ctx)
            memory_id = await valid_memory_id(memory_id)
            deleted_at = await memories.delete(
                stores=who.runtime.stores, scope=who.scope, actor=who.principal.actor,
                memory_id=memory_id,
            )  # fmt: skip
            return {"memory_id": memory_id, "deleted_at": deleted_at}


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
    ) -> dict[str, Any]:
        """Finds memories by meaning and keywords, best first."""
        with reported():
            who = caller(ctx)
            body = _given(query=query, limit=limit, tags=tags, type=type, time_query=time_query,
                          start=start, end=end, expand_relations=expand_relations)  # fmt: skip
            answered = await recall_routes.recall_post(who.runtime, who.scope, body)
            found = json.loads(answered.body)
            results = [_compact(item) for item in found["results"]]
            return {"query": query, "count": len(results), "results": results,
                    "degraded": found.get("degraded", [])}  # fmt: skip

    @server.tool(annotations=READ_ONLY)
    async def context(
        ctx: Context,
        query: Annotated[
            str, Field(description="What the conversation is about; empty = core memories only.")
        ] = "",
        max_tokens: Annotated[int, Field(description="Budget.", ge=50, le=32000)] = 1000,
        include_core: Annotated[bool, Field(description="Core memories first.")] = True,
    ) -> dict[str, Any]:
        """A prompt-ready block of what is known: core memories, then what the query recalls."""
        with reported():
            who = caller(ctx)
            body = core_router.ContextRequest(
                query=query, max_tokens=max_tokens, include_core=include_core
            )
            block = await core_router.recall_context(who.runtime, who.scope, body)
            return block.model_dump(mode="json")

    @server.tool(annotations=READ_ONLY)
    async def core(ctx: Context) -> dict[str, Any]:
        """Core memories: the pinned ones by section, the most important, the recent."""
        with reported():
            who = caller(ctx)
            return (await core_router.core(who.runtime, who.scope)).model_dump(mode="json")


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
        with reported():
            who = caller(ctx)
            item = relations.parse_association(
                {"memory1_id": memory1_id, "memory2_id": memory2_id, "type": type,
                 "strength": strength}
            )  # fmt: skip
            linked = await relations.associate(
                who.runtime.stores.graph, who.scope, [item], actor=who.principal.actor
            )
            if not linked:
                raise NotFound("One or both memories do not exist")
            return {"relation_type": item.type, "strength": item.strength, **item.props}

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
        with reported():
            who = caller(ctx)
            types = ",".join(relationship_types) if relationship_types else None
            memory_id = await valid_memory_id(memory_id)
            return await relation_routes.related(
                memory_id, who.runtime.stores, who.scope, types, max_depth, limit
            )

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
        with reported():
            who = caller(ctx)
            found = await entities_routes.list_entities(
                who.runtime.stores, who.scope, category, limit
            )
            return found.model_dump(mode="json")


def section_slug(name: str) -> str:
    """'Agent Identity' -> 'agent-identity' (a URI segment)."""
    return name.lower().replace(" ", "-")


def _resources(server: MCPServer, caller: CallerResolver) -> None:
    slugs = {section_slug(name): name for name in SECTIONS}
    sections = ", ".join(slugs)

    @server.resource(
        "engram://core/{section}",
        mime_type="application/json",
        description=f"Core memories: 'all', or one section ({sections}).",
    )
    async def core_memories(section: str, ctx: Context) -> str:
        with reported(ResourceError):
            if section != "all" and section not in slugs:
                raise NotFound(f"No core section {section!r}: use 'all' or one of {sections}")
            who = caller(ctx)
            found = await core_router.core(who.runtime, who.scope)
            if section == "all":
                return found.model_dump_json()
            return json.dumps(found.sections[slugs[section]])

    @server.resource(
        "engram://memory/{memory_id}", mime_type="application/json", description="One memory."
    )
    async def memory(memory_id: str, ctx: Context) -> str:
        with reported(ResourceError):
            who = caller(ctx)
            memory_id = await valid_memory_id(memory_id)
            found = await memories.get(
                stores=who.runtime.stores, scope=who.scope, memory_id=memory_id
            )
            return json.dumps(public(found))
