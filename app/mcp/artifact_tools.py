"""The MCP tools of artifacts, the files attached to a memory (slow memory): save, list, read
(text in pages, binary inline or as a download URL) and delete."""

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from app.mcp.caller import CallerResolver
from app.mcp.calls import DESTRUCTIVE, READ_ONLY, WRITES, MemoryId, given, memory_path, segment

ArtifactId = Annotated[str, Field(description="The artifact's id (a UUID).", max_length=100)]
INLINE_BINARY = 1 << 20  # larger binary artifacts come as a download URL, not inline


def artifact_path(memory_id: str, artifact_id: str | None = None) -> str:
    path = f"{memory_path(memory_id)}/artifacts"
    return f"{path}/{segment(artifact_id)}" if artifact_id else path


def is_text(content_type: str) -> bool:
    return content_type.startswith("text/") or content_type == "application/json"


def register(server: MCPServer, caller: CallerResolver) -> None:
    """Adds the artifact tools to an MCP server."""

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
