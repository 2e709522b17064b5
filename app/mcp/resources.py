"""The MCP resources: core memories (all, or one section) and one memory, as JSON."""

import json

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from app.mcp.caller import CallerResolver
from app.mcp.calls import memory_path

SECTIONS = (
    "agent-identity",
    "agent-knowledge",
    "agent-instructions",
    "user-facts",
    "user-preferences",
)


def register(server: MCPServer, caller: CallerResolver) -> None:
    """Adds the resources to an MCP server."""
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
