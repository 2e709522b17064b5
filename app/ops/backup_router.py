"""GET /backup (AutoMem's shape: a gzip tar stream, `include=falkordb,qdrant`) and
POST /admin/restore (the archive as the request body). Admin key only."""

import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, JSONResponse
from starlette.background import BackgroundTask

from app.deps import AdminDep, EmbedderDep, JobsDep, QueryBool, SettingsDep, StoresDep
from app.memories.tasks import EmbedDeps
from app.ops.backup import BackupSource, create_backup, parse_include
from app.ops.recover import recover_from_vectors
from app.ops.restore import restore_backup
from app.ops.uploads import receive_to
from app.ops.write_gate import WriteGate

router = APIRouter(tags=["operations"])

MAX_ARCHIVE_BYTES = 64 << 30


def _gate(request: Request) -> WriteGate:
    return request.app.state.write_gate


@router.get(
    "/backup",
    response_class=FileResponse,
    responses={200: {"content": {"application/gzip": {}}, "description": "The archive."}},
)
async def backup(
    request: Request,
    stores: StoresDep,
    embedder: EmbedderDep,
    _: AdminDep,
    include: Annotated[str | None, Query(max_length=100)] = None,
) -> FileResponse:
    """A consistent snapshot of the graph (and the vectors) as a tar.gz with a manifest."""
    parts = parse_include(include)
    workdir = Path(tempfile.mkdtemp(prefix="engram-backup-"))
    try:
        source = BackupSource(stores, embedder, _gate(request))
        path = await create_backup(source, workdir, parts)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return FileResponse(
        path,
        media_type="application/gzip",
        filename=path.name,
        background=BackgroundTask(shutil.rmtree, workdir, ignore_errors=True),
    )


@router.post("/admin/restore")
async def restore(
    request: Request,
    stores: StoresDep,
    embedder: EmbedderDep,
    jobs: JobsDep,
    settings: SettingsDep,
    _: AdminDep,
    force: QueryBool = False,
) -> JSONResponse:
    """Restores a backup archive (the request body) into this server, which must be empty
    unless `force` (then everything it holds is replaced), and proves the result."""
    workdir = Path(tempfile.mkdtemp(prefix="engram-restore-"))
    try:
        upload = workdir / "backup.tar.gz"
        await receive_to(request, upload, limit=MAX_ARCHIVE_BYTES, what="A backup archive")
        deps = EmbedDeps(stores, embedder, jobs, settings.embedding_include_date)
        report = await restore_backup(deps, _gate(request), upload, workdir / "x", force=force)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if not report.verified:
        message = "The restored store does not equal the backup (see the differences)"
        body = {"status": "error", "code": 500, "error": "restore_unverified", "message": message}
        return JSONResponse({**body, **report.as_dict()}, status_code=500)
    return JSONResponse({"status": "success", **report.as_dict()})


@router.post("/admin/recover-from-vectors")
async def recover(
    request: Request,
    stores: StoresDep,
    embedder: EmbedderDep,
    jobs: JobsDep,
    settings: SettingsDep,
    admin: AdminDep,
    force: QueryBool = False,
) -> dict[str, Any]:
    """Rebuilds the memories of a lost graph from the vector points (content and fields; not
    revisions, links or entities, as the report lists). Refuses a graph that holds memories
    unless `force`, which adds only the missing ones; never deletes anything."""
    deps = EmbedDeps(stores, embedder, jobs, settings.embedding_include_date)
    async with _gate(request).paused():
        report = await recover_from_vectors(deps, force=force, actor=admin.actor)
    return {"status": "success", **report.as_dict()}
