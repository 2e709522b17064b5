"""The MCP tools and resources. Each is one request to the matching HTTP route (through
`Caller`), so it has no rules of its own; the groups live in their own modules."""

from mcp.server.mcpserver import MCPServer

from app.mcp import artifact_tools, graph_tools, memory_tools, recall_tools, resources
from app.mcp.caller import CallerResolver


def register(server: MCPServer, caller: CallerResolver) -> None:
    """Adds Engram's tools and resources to an MCP server."""
    memory_tools.register(server, caller)
    recall_tools.register(server, caller)
    graph_tools.register(server, caller)
    artifact_tools.register(server, caller)
    resources.register(server, caller)
