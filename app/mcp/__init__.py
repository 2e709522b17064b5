"""Engram as an MCP server: the same tools over streamable HTTP (/mcp) and stdio (`engram mcp`).

The tools call the services the HTTP routes call, with the caller's API key and agent scope.
"""
