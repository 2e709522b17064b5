"""The caller's own data as a whole: GET /me/export and DELETE /me.

Both act on every memory of the key's user, whatever agent wrote it, so they need a key that
stands for the user alone: a key bound to an agent prefix is refused (403), and so is an agent
scope asked for with X-Agent-Id (400), rather than reaching memories outside that agent's scope.
"""

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from app.deps import JobsDep, PrincipalDep, QueryBool, ScopeDep, SettingsDep, StoresDep
from app.errors import BadRequest, Forbidden
from app.memories.erase import count_erasure, erase_user
from app.memories.user_data import delete_all
from app.ops.portable import export_lines

router = APIRouter(tags=["memories"])


async def whole_user(principal: PrincipalDep, scope: ScopeDep) -> str:
    """The caller's user id, for a key and a request that stand for the whole user."""
    if principal.agent_prefix:
        raise Forbidden(
            f"This API key is limited to agent '{principal.agent_prefix}'; /me covers every "
            "memory of the user: use the user's own key"
        )
    if scope.agent_id:
        raise BadRequest(
            "/me covers every memory of the user, whatever the agent: send it without X-Agent-Id"
        )
    return scope.user_id


UserIdDep = Annotated[str, Depends(whole_user)]


class DeleteMeResponse(BaseModel):
    status: Literal["success"] = "success"
    user_id: str = Field(description="Whose memories were deleted: yours.")
    erased: bool = Field(description="Whether the content was erased everywhere (`erase=true`).")
    deleted_count: int = Field(description="Memories deleted (erased: every memory ever held).")
    other_nodes_deleted: int = Field(
        0,
        description="Erased: the sessions, patterns, entities and idempotency keys removed "
        "with them.",
    )


@router.get(
    "/me/export",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}, "description": "JSON Lines."}},
)
async def export_my_memories(user_id: UserIdDep, stores: StoresDep) -> StreamingResponse:
    """Every live memory of yours (any agent's) as JSON Lines with its revisions, links and
    entity mentions: the format of /admin/export, which /admin/import reads back."""
    return StreamingResponse(
        export_lines(stores.graph, user_id, stores.artifacts),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": 'attachment; filename="engram-export.jsonl"'},
    )


@router.delete("/me", response_model=DeleteMeResponse)
async def delete_my_memories(
    user_id: UserIdDep,
    stores: StoresDep,
    principal: PrincipalDep,
    jobs: JobsDep,
    settings: SettingsDep,
    confirm: Annotated[
        str | None, Query(max_length=200, description="Your user id, to confirm.")
    ] = None,
    erase: Annotated[
        QueryBool, Query(description="Remove the content everywhere, history included.")
    ] = False,
) -> DeleteMeResponse:
    """Deletes every memory of yours, of every agent, each leaving a tombstone and its final
    revision (as DELETE /memory/{id}). `erase=true` erases instead, as the operator's
    DELETE /admin/users/{user_id}: every memory ever held with all revisions, the vectors, your
    sessions, patterns and entities; only tombstones (ids, times, content hash) and audit
    events stay. Erasures count towards ERASE_RATE_PER_MINUTE (429 with Retry-After past it)."""
    if confirm != user_id:
        raise BadRequest(f"Deleting all your memories needs confirm={user_id} (your user id)")
    if erase:
        await count_erasure(jobs, settings, user_id)
        report = await erase_user(stores, user_id, actor=principal.actor)
        return DeleteMeResponse(
            user_id=user_id,
            erased=True,
            deleted_count=len(report.erased),
            other_nodes_deleted=report.other_nodes_deleted,
        )
    count = await delete_all(stores, user_id, actor=principal.actor)
    return DeleteMeResponse(user_id=user_id, erased=False, deleted_count=count)
