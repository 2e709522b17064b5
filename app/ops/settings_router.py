"""The caller's own settings: GET and PUT /me/settings (Personal Intelligence, for now).

Any key of the user may read them (an agent's recalls obey them); changing them needs the
user's own key, without X-Agent-Id, as the rest of /me: one agent does not decide for all.
"""

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.deps import ScopeDep, StoresDep
from app.models import to_iso, utc_now
from app.ops.me_router import UserIdDep
from app.storage.graph import user_settings

router = APIRouter(tags=["memories"])


class SettingsOut(BaseModel):
    personal_intelligence: bool = Field(
        description="true (default): recall draws on all your memories; false: only on the "
        "current session's (the request's session_id) and the pinned ones."
    )
    updated_at: str | None = Field(description="The last change; null: never changed.")


class SettingsIn(BaseModel):
    personal_intelligence: bool = Field(description="See GET /me/settings.")


@router.get("/me/settings", response_model=SettingsOut)
async def my_settings(stores: StoresDep, scope: ScopeDep) -> SettingsOut:
    """Your settings; those you never changed have their defaults."""
    return SettingsOut(**await user_settings.user_settings(stores.graph, scope.user_id))


@router.put("/me/settings", response_model=SettingsOut)
async def change_my_settings(
    body: SettingsIn, user_id: UserIdDep, stores: StoresDep
) -> SettingsOut:
    """Changes your settings; every recall after the answer follows them."""
    now = to_iso(utc_now())
    changed = await user_settings.set_personal_intelligence(
        stores.graph, user_id, body.personal_intelligence, now
    )
    return SettingsOut(**changed)
