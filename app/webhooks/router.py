"""/admin/webhooks: register, list and delete webhook targets (admin key)."""

import secrets
import uuid
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Body, Path, Query
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.config import Settings
from app.deps import AdminDep, SettingsDep, StoresDep
from app.errors import BadRequest, Conflict, NotFound
from app.models import to_iso, utc_now
from app.storage.graph import webhooks
from app.webhooks.addresses import AddressPolicy, AddressRefused, check_url
from app.webhooks.events import EVENT_TYPES

router = APIRouter(tags=["webhooks"])

MAX_URL_CHARS = 2000
EventType = Literal[
    "memory.created",
    "memory.updated",
    "memory.superseded",
    "memory.deleted",
    "memory.erased",
    "remember.finished",
]


class WebhookCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is refused, not ignored

    url: str = Field(max_length=MAX_URL_CHARS, description="Where to POST, http(s)://…")
    user_id: str | None = Field(
        max_length=200, description="Whose events it receives; null: every user's."
    )
    events: list[EventType] | None = Field(
        None, min_length=1, max_length=len(EVENT_TYPES), description="null: every event type."
    )
    secret: str | None = Field(
        None,
        min_length=16,
        max_length=256,
        description="The HMAC key deliveries are signed with; null: one is made and answered once.",
    )
    description: str | None = Field(None, max_length=200, description="A note for operators.")

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        if parts.username or parts.password:
            raise ValueError("must not hold credentials (the signature authenticates Engram)")
        _ = parts.port  # ValueError: a port that is not a number from 0 to 65535
        return value.strip()


class WebhookOut(BaseModel):
    id: str = Field(description="The target's id.")
    url: str = Field(description="Where events are POSTed.")
    user_id: str | None = Field(description="Whose events; null: every user's.")
    events: list[str] = Field(description="The event types it receives.")
    created_at: str = Field(description="When it was registered.")
    description: str | None = Field(None, description="The operator's note.")


class WebhookCreated(WebhookOut):
    secret: str = Field(description="The signing secret: shown only in this answer.")


class WebhookList(BaseModel):
    status: Literal["success"] = "success"
    targets: list[WebhookOut] = Field(description="Oldest first; secrets are never listed.")


def _out(target: webhooks.Target) -> dict[str, Any]:
    return {
        "id": target.id,
        "url": target.url,
        "user_id": target.user_id,
        "events": target.events,
        "created_at": target.created_at,
        "description": target.description,
    }


@router.post("/admin/webhooks", status_code=201, response_model=WebhookCreated)
async def create_webhook(
    stores: StoresDep, settings: SettingsDep, _: AdminDep, body: Annotated[WebhookCreate, Body()]
) -> dict[str, Any]:
    """Registers a target for one user's events (or every user's): each event is POSTed to it,
    signed with its secret (docs/api.md#webhooks). The URL's host must resolve to public
    addresses only, unless WEBHOOK_ALLOW_PRIVATE or WEBHOOK_ALLOWED_CIDRS allows more."""
    await _deliverable(body.url, settings)
    registered = await webhooks.count_targets(stores.graph, body.user_id)
    if registered >= settings.webhook_max_targets:
        whose = f"user {body.user_id}" if body.user_id else "all users"
        raise Conflict(
            f"{whose} already has {registered} webhook targets, the most allowed "
            "(WEBHOOK_MAX_TARGETS); delete one first"
        )
    target = webhooks.Target(
        id=str(uuid.uuid4()),
        url=body.url,
        secret=body.secret or "whsec_" + secrets.token_urlsafe(32),
        events=list(dict.fromkeys(body.events or EVENT_TYPES)),
        user_id=body.user_id,
        created_at=to_iso(utc_now()),
        description=body.description,
    )
    await webhooks.create_target(stores.graph, target)
    return {**_out(target), "secret": target.secret}


async def _deliverable(url: str, settings: Settings) -> None:
    try:
        await check_url(url, AddressPolicy.of(settings), timeout_s=settings.webhook_timeout_s)
    except AddressRefused as exc:
        raise BadRequest(
            f"Invalid 'url': {exc}; webhook targets must be public addresses (an operator can "
            "allow others: WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOWED_CIDRS)"
        ) from None


@router.get("/admin/webhooks", response_model=WebhookList)
async def list_webhooks(
    stores: StoresDep,
    _: AdminDep,
    user_id: Annotated[str | None, Query(max_length=200, description="Only this user's.")] = None,
) -> dict[str, Any]:
    """The registered targets, without their secrets."""
    targets = await webhooks.list_targets(stores.graph, user_id)
    return {"status": "success", "targets": [_out(t) for t in targets]}


@router.delete("/admin/webhooks/{target_id}")
async def delete_webhook(
    stores: StoresDep, _: AdminDep, target_id: Annotated[str, Path(max_length=100)]
) -> dict[str, Any]:
    """Deletes a target; its deliveries still queued are dropped."""
    if not await webhooks.delete_target(stores.graph, target_id):
        raise NotFound(f"Webhook target {target_id} not found")
    return {"status": "success", "deleted": target_id}
