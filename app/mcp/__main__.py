"""`python -m app.mcp`: the MCP server over stdio (the same as `engram mcp`)."""

from app.mcp.stdio import main

if __name__ == "__main__":
    main()
