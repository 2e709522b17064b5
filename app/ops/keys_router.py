"""/admin/keys: make, list and revoke users' API keys at runtime (admin key).

The key itself is in the creation's answer only; the graph keeps its sha256 digest. Keys made
here are user keys: the admin key stays in configuration (ENGRAM_ADMIN_KEY).
"""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from app.auth.runtime_keys import KEY_PREFIX
from app.deps import AdminDep, QueryBool, RuntimeKeysDep, StoresDep
from app.errors import BadRequest
from app.scope import AGENT_ID
from app.storage.graph import api_keys
from app.storage.graph.api_keys import ApiKeyRecord
from app.validation import MAX_USER_ID_CHARS, USER_ID_PATTERN

router = APIRouter(tags=["operations"])

KEY_ID_PATTERN = r"^[0-9a-f]{16}$"
MAX_LABEL_CHARS = 200
MAX_PAGE = 500

UserIdField = Field(
    min_length=1,
    max_length=MAX_USER_ID_CHARS,
    pattern=USER_ID_PATTERN,
    description="The user the key acts for (1-200 characters, no control characters).",
)
# Any id is looked up (bounded): one that is not a key's is a 404, as for an unknown key.
KeyIdPath = Annotated[str, Path(min_length=1, max_length=64, description="The key's id.")]


class KeyCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # e.g. `admin: true` is refused, not ignored

    user_id: str = UserIdField
    agent_prefix: str | None = Field(
        None,
        max_length=600,
        pattern=AGENT_ID.pattern,
        description="Limits the key to this agent and its sub-agents (as ENGRAM_API_KEYS' "
        "agent_prefix); null: any agent of the user.",
    )
    label: str | None = Field(
        None, max_length=MAX_LABEL_CHARS, description="A note for operators (who holds it)."
    )


class KeyOut(BaseModel):
    key_id: str = Field(description="The key's id: names it in listings, revocation and audit.")
    user_id: str = Field(description="The user the key acts for.")
    agent_prefix: str | None = Field(None, description="The agent scope it is limited to.")
    label: str | None = Field(None, description="The operator's note.")
    admin: Literal[False] = Field(False, description="Always false: runtime keys are user keys.")
    created_at: str = Field(description="When it was made.")
    created_by: str | None = Field(None, description="Who made it (the audit actor).")
    revoked_at: str | None = Field(None, description="When it was revoked; null: it works.")
    last_used_at: str | None = Field(
        None, description="When it was last used (written about once a minute)."
    )


class KeyCreated(KeyOut):
    api_key: str = Field(description=f"The key ({KEY_PREFIX}…): shown only in this answer.")


class KeyRevoked(KeyOut):
    status: Literal["success"] = "success"


class KeyList(BaseModel):
    status: Literal["success"] = "success"
    keys: list[KeyOut] = Field(description="Oldest first; keys themselves are never listed.")
    next_cursor: str | None = Field(
        description="Pass as `cursor` for the next page; null: this is the last."
    )


def _out(record: ApiKeyRecord) -> dict[str, Any]:
    return {
        "key_id": record.key_id,
        "user_id": record.user_id,
        "agent_prefix": record.agent_prefix,
        "label": record.label,
        "admin": False,
        "created_at": record.created_at,
        "created_by": record.created_by,
        "revoked_at": record.revoked_at,
        "last_used_at": record.last_used_at,
    }


@router.post("/admin/keys", status_code=201, response_model=KeyCreated)
async def create_api_key(
    keys: RuntimeKeysDep, admin: AdminDep, body: Annotated[KeyCreate, Body()]
) -> dict[str, Any]:
    """Makes an API key for a user; it works at once, in every process. The key is in this
    answer only: store it, Engram keeps only its digest."""
    record, key = await keys.issue(body.user_id, body.agent_prefix, body.label, admin.actor)
    return {**_out(record), "api_key": key}


@router.get("/admin/keys", response_model=KeyList)
async def list_api_keys(
    stores: StoresDep,
    _: AdminDep,
    user_id: Annotated[
        str | None,
        Query(
            max_length=MAX_USER_ID_CHARS, pattern=USER_ID_PATTERN, description="Only this user's."
        ),
    ] = None,
    include_revoked: Annotated[QueryBool, Query(description="Also the revoked keys.")] = False,
    cursor: Annotated[
        str | None, Query(pattern=KEY_ID_PATTERN, description="The previous page's next_cursor.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Keys per page.")] = 100,
) -> dict[str, Any]:
    """The keys made at runtime (not those of ENGRAM_API_KEYS), without the keys themselves."""
    if cursor is not None and await api_keys.get_key(stores.graph, cursor) is None:
        raise BadRequest(f"Invalid cursor: no API key {cursor}")
    page = await api_keys.list_keys(
        stores.graph,
        user_id=user_id,
        include_revoked=include_revoked,
        cursor=cursor,
        limit=limit + 1,
    )
    more = len(page) > limit
    shown = page[:limit]
    return {
        "status": "success",
        "keys": [_out(record) for record in shown],
        "next_cursor": shown[-1].key_id if more else None,
    }


@router.delete("/admin/keys/{key_id}", response_model=KeyRevoked)
async def revoke_api_key(keys: RuntimeKeysDep, _: AdminDep, key_id: KeyIdPath) -> dict[str, Any]:
    """Revokes a key: refused at once in this process, and in every other within
    ENGRAM_KEYS_REFRESH_S. Revoking it again answers the first revocation's time."""
    record = await keys.revoke(key_id)
    return {"status": "success", **_out(record)}
