"""The MCP tools of the memory graph: `associate` two memories, the memories `related` to one,
and the `entities` memories mention."""

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from app.mcp.caller import CallerResolver
from app.mcp.calls import READ_ONLY, WRITES, MemoryId, given, segment


def register(server: MCPServer, caller: CallerResolver) -> None:
    """Adds the graph tools to an MCP server."""

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
