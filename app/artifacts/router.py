"""HTTP routes of artifacts: files attached to a memory (app/artifacts/service.py)."""

import base64
import binascii
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from typing import IO, Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from app.artifacts import service as artifacts
from app.artifacts.checks import is_text
from app.artifacts.links import verify
from app.artifacts.schemas import (
    ArtifactBase64Response,
    ArtifactCreate,
    ArtifactDeleteResponse,
    ArtifactListResponse,
    ArtifactResponse,
    ArtifactTextResponse,
    ArtifactUrlRequest,
    ArtifactUrlResponse,
)
from app.deps import (
    AuthenticatorDep,
    JobsDep,
    MemoryIdDep,
    PrincipalDep,
    ScopeDep,
    SettingsDep,
    StoresDep,
)
from app.errors import BadRequest, Forbidden
from app.http_errors import describe_validation_error
from app.models import ArtifactMeta
from app.scope import Scope

router = APIRouter(tags=["artifacts"])

CHUNK = 1 << 20
MAX_PAGE = 1_000_000
UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {"type": "string", "format": "binary", "description": "The file."},
                        "filename": {"type": "string", "description": "Overrides the part's."},
                        "content_type": {"type": "string", "description": "Overrides the part's."},
                    },
                }
            },
            "application/json": {"schema": ArtifactCreate.model_json_schema()},
        },
    }
}
# User files are served as downloads, never rendered in the API's origin.
SAFE_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox"}


async def valid_artifact_id(
    artifact_id: Annotated[str, Path(description="The artifact's UUID.")],
) -> str:
    try:
        return str(uuid.UUID(artifact_id))
    except ValueError:
        raise BadRequest("artifact_id must be a valid UUID") from None


ArtifactIdDep = Annotated[str, Depends(valid_artifact_id)]


@router.post(
    "/memory/{memory_id}/artifacts",
    status_code=201,
    response_model=ArtifactResponse,
    openapi_extra=UPLOAD_BODY,
)
async def save_artifact(
    request: Request,
    memory_id: MemoryIdDep,
    stores: StoresDep,
    scope: ScopeDep,
    principal: PrincipalDep,
    settings: SettingsDep,
    jobs: JobsDep,
) -> ArtifactResponse:
    """Attaches a file: multipart (`file`), or JSON with `content` (text) or `content_base64`.

    At most MAX_ARTIFACT_SIZE bytes (413 over it); the type must be text/*, application/json,
    application/pdf, image/png|jpeg|gif|webp or application/octet-stream (415 otherwise). A text
    artifact's search index (for `include_artifacts` on recall) is built by a job after it."""
    limit = settings.max_artifact_size

    async def store(upload: artifacts.Upload) -> ArtifactResponse:
        meta = await artifacts.save(stores, scope, principal.actor, memory_id, upload, limit=limit)
        if is_text(meta.content_type):
            await artifacts.queue_index(jobs, scope, memory_id)
        return ArtifactResponse(memory_id=memory_id, artifact=meta)

    if request.headers.get("content-type", "").lower().startswith("multipart/form-data"):
        async with request.form(max_files=1, max_fields=4) as form:
            return await store(_form_upload(form.get("file"), form))
    return await store(_json_upload(await request.body()))


def _form_upload(part: Any, form: Any) -> artifacts.Upload:
    if not isinstance(part, UploadFile):
        raise BadRequest("A multipart upload needs its file in the part named 'file'")
    filename, content_type = form.get("filename"), form.get("content_type")
    return artifacts.Upload(
        filename=filename if isinstance(filename, str) else part.filename,
        content_type=content_type if isinstance(content_type, str) else part.content_type,
        blocks=_blocks(part.file),
        text=False,
    )


def _blocks(handle: IO[bytes]) -> Iterator[bytes]:
    while block := handle.read(CHUNK):
        yield block


def _json_upload(raw: bytes) -> artifacts.Upload:
    try:
        body = ArtifactCreate.model_validate_json(raw)
    except ValidationError as exc:
        raise BadRequest(describe_validation_error(dict(exc.errors()[0]))) from None
    if (body.content is None) == (body.content_base64 is None):
        raise BadRequest("Give exactly one of 'content' (text) and 'content_base64' (bytes)")
    if body.content is not None:
        data = body.content.encode()
    else:
        try:
            data = base64.b64decode(body.content_base64 or "", validate=True)
        except (binascii.Error, ValueError):
            raise BadRequest("Invalid 'content_base64': not base64") from None
    return artifacts.Upload(body.filename, body.content_type, [data], body.content is not None)


@router.get("/memory/{memory_id}/artifacts", response_model=ArtifactListResponse)
async def list_artifacts(
    memory_id: MemoryIdDep, stores: StoresDep, scope: ScopeDep
) -> ArtifactListResponse:
    """The metadata of every file attached to the memory."""
    found = await artifacts.list_of(stores, scope, memory_id)
    return ArtifactListResponse(memory_id=memory_id, count=len(found), artifacts=found)


@router.get(
    "/memory/{memory_id}/artifacts/{artifact_id}",
    response_model=None,
    responses={
        200: {
            "description": "Text: a page of it (JSON). Other types: the file itself, or with "
            "encoding=base64, JSON with `content_base64`.",
            "content": {
                "application/json": {"schema": ArtifactTextResponse.model_json_schema()},
                "application/octet-stream": {},
            },
        }
    },
)
async def get_artifact(
    memory_id: MemoryIdDep,
    artifact_id: ArtifactIdDep,
    stores: StoresDep,
    scope: ScopeDep,
    offset: Annotated[int, Query(ge=0, description="Text: the first character.")] = 0,
    limit: Annotated[
        int, Query(ge=1, le=MAX_PAGE, description="Text: characters in the page.")
    ] = 10_000,
    encoding: Annotated[
        Literal["raw", "base64"], Query(description="Binary: the file (raw) or JSON (base64).")
    ] = "raw",
) -> Response:
    """A text artifact in pages of characters; any other artifact whole."""
    meta = await artifacts.find(stores, scope, memory_id, artifact_id)
    if is_text(meta.content_type):
        page = await artifacts.read_text(stores, scope, memory_id, meta, offset=offset, limit=limit)
        body = ArtifactTextResponse(memory_id=memory_id, artifact=meta, **vars(page))
        return JSONResponse(body.model_dump(mode="json"))
    if encoding == "base64":
        data = await artifacts.read_bytes(stores, scope, memory_id, meta)
        encoded = base64.b64encode(data).decode()
        answer = ArtifactBase64Response(memory_id=memory_id, artifact=meta, content_base64=encoded)
        return JSONResponse(answer.model_dump(mode="json"))
    return await _file(stores, scope, memory_id, meta)


async def _file(stores: StoresDep, scope: Scope, memory_id: str, meta: ArtifactMeta) -> Response:
    path = await artifacts.file_path(stores, scope, memory_id, meta)
    media = f"{meta.content_type}; charset=utf-8" if is_text(meta.content_type) else None
    if path is not None:
        return FileResponse(
            path,
            media_type=media or meta.content_type,
            filename=meta.filename,
            headers=SAFE_HEADERS,
        )
    data = await artifacts.read_bytes(stores, scope, memory_id, meta)  # ≤ MAX_ARTIFACT_SIZE
    headers = {**SAFE_HEADERS, "Content-Disposition": _attachment(meta.filename)}
    return Response(data, media_type=media or meta.content_type, headers=headers)


def _attachment(filename: str) -> str:
    """The Content-Disposition FileResponse sends for a local file (RFC 6266)."""
    quoted = urllib.parse.quote(filename)
    if quoted != filename:
        return f"attachment; filename*=utf-8''{quoted}"
    return f'attachment; filename="{filename}"'


@router.delete("/memory/{memory_id}/artifacts/{artifact_id}", response_model=ArtifactDeleteResponse)
async def delete_artifact(
    memory_id: MemoryIdDep,
    artifact_id: ArtifactIdDep,
    stores: StoresDep,
    scope: ScopeDep,
    principal: PrincipalDep,
) -> ArtifactDeleteResponse:
    """Takes the file off the memory and deletes it."""
    await artifacts.delete(stores, scope, principal.actor, memory_id, artifact_id)
    return ArtifactDeleteResponse(memory_id=memory_id, artifact_id=artifact_id)


@router.post("/memory/{memory_id}/artifacts/{artifact_id}/url", response_model=ArtifactUrlResponse)
async def artifact_url(
    request: Request,
    memory_id: MemoryIdDep,
    artifact_id: ArtifactIdDep,
    stores: StoresDep,
    scope: ScopeDep,
    principal: PrincipalDep,
    settings: SettingsDep,
    body: ArtifactUrlRequest | None = None,
) -> ArtifactUrlResponse:
    """A signed URL that downloads the artifact without an API key until it expires, or until
    the API key that asked for it is revoked."""
    ttl = (body.expires_in if body else None) or settings.artifact_url_ttl_s
    key = await artifacts.url_key(stores, settings.artifact_url_secret)
    token, expires_at = await artifacts.link(
        stores, scope, memory_id, artifact_id, ttl_s=ttl, key=key, key_id=principal.key_id
    )
    url = request.url_for("download_artifact").include_query_params(token=token)
    return ArtifactUrlResponse(url=str(url), expires_at=expires_at)


@router.get(
    "/artifacts/download",
    response_class=FileResponse,
    responses={200: {"content": {"application/octet-stream": {}}, "description": "The file."}},
)
async def download_artifact(
    stores: StoresDep,
    settings: SettingsDep,
    authenticator: AuthenticatorDep,
    token: Annotated[str, Query(max_length=4000, description="From POST …/url.")],
) -> Response:
    """The artifact a signed URL names (no API key: the token is the permission, while the key
    that asked for it is valid)."""
    key = await artifacts.url_key(stores, settings.artifact_url_secret)
    grant = verify(token, key, time.time())
    if not await authenticator.is_live(grant.key_id, grant.user_id):
        raise Forbidden("This download link's API key has been revoked: ask for a new link")
    meta = await artifacts.find(stores, grant.scope, grant.memory_id, grant.artifact_id)
    return await _file(stores, grant.scope, grant.memory_id, meta)
