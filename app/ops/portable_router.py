"""GET /admin/export (JSON Lines, from a consistent copy of the graph) and POST /admin/import
(JSON Lines as the request body). Admin key only."""

import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from app.deps import AdminDep, EmbedderDep, JobsDep, SettingsDep, StoresDep
from app.memories.tasks import EmbedDeps
from app.ops.portable import export_lines, import_file
from app.ops.uploads import receive_to
from app.ops.write_gate import WriteGate
from app.storage.artifacts.files import ArtifactStore
from app.storage.graph.store import GraphStore

router = APIRouter(tags=["operations"])

MAX_IMPORT_BYTES = 16 << 30
UserFilter = Annotated[
    str | None, Query(min_length=1, max_length=200, description="Only this user's memories.")
]


@router.get(
    "/admin/export",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}, "description": "JSON Lines."}},
)
async def export(
    request: Request, stores: StoresDep, _: AdminDep, user_id: UserFilter = None
) -> StreamingResponse:
    """Every live memory (or one user's) as JSON Lines with revisions, links and entities,
    read from a point-in-time copy of the graph."""
    graph = stores.graph
    copy = graph.on_graph(f"{graph.graph_name}__export_{uuid.uuid4().hex[:12]}")
    gate: WriteGate = request.app.state.write_gate
    async with gate.paused():
        await graph.copy_to(copy.graph_name)
    return StreamingResponse(
        _from_copy(copy, user_id, stores.artifacts),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": 'attachment; filename="engram-export.jsonl"'},
    )


async def _from_copy(
    copy: GraphStore, user_id: str | None, files: ArtifactStore | None
) -> AsyncIterator[bytes]:
    try:
        async for chunk in export_lines(copy, user_id, files):
            yield chunk
    finally:
        await copy.delete_graph()


@router.post("/admin/import")
async def import_memories(
    request: Request,
    stores: StoresDep,
    embedder: EmbedderDep,
    jobs: JobsDep,
    settings: SettingsDep,
    admin: AdminDep,
    user_id: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=200,
            description="Owner of the imported memories (required for AutoMem's, which have "
            "no user; for Engram's it replaces the exported owner).",
        ),
    ] = None,
) -> dict[str, Any]:
    """Imports JSON Lines (Engram's export, or AutoMem memories): ids kept, duplicates by id or
    content skipped, every line checked before any is written."""
    workdir = Path(tempfile.mkdtemp(prefix="engram-import-"))
    try:
        path = workdir / "import.jsonl"
        await receive_to(request, path, limit=MAX_IMPORT_BYTES, what="An import")
        deps = EmbedDeps(stores, embedder, jobs, settings.embedding_include_date)
        report = await import_file(deps, path, user_id=user_id, actor=admin.actor)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"status": "success", **report.as_dict()}
