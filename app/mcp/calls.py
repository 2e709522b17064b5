"""What every group of MCP tools shares: the tools' annotations, a memory id's schema, and the
arguments and paths of the HTTP request a tool makes."""

from typing import Annotated, Any
from urllib.parse import quote

from mcp.types import ToolAnnotations
from pydantic import Field

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
DESTRUCTIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)

MemoryId = Annotated[str, Field(description="The memory's id (a UUID).", max_length=100)]


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
