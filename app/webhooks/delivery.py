"""Delivery of one event to one target: the handler of `webhook` jobs.

The body is the event as compact JSON; `X-Engram-Signature: sha256=<hex>` is the HMAC-SHA256 of
those exact bytes with the target's secret. A 2xx answer delivers it; anything else (another
status, a refused connection, a timeout) fails the attempt, which the queue retries with
backoff and, after the last attempt, keeps as a dead letter.
"""

import hashlib
import hmac
import json
import time
from typing import Any

import httpx

from app.jobs.spec import JobContext
from app.storage.webhooks import get_target

SIGNATURE = "X-Engram-Signature"
TIMESTAMP = "X-Engram-Timestamp"
EVENT = "X-Engram-Event"
DELIVERY = "X-Engram-Delivery"
USER_AGENT = "Engram-Webhooks/1"


class DeliveryFailed(Exception):
    """The target did not take the event (the attempt is retried)."""


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def encoded(event: dict[str, Any]) -> bytes:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()


async def webhook_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `webhook` jobs: ids = [target id, event id], payload = {event}. A target
    deleted meanwhile is not called."""
    target = await get_target(ctx.deps.stores.graph, ctx.ids[0])
    if target is None:
        return {"skipped": "the target was deleted"}
    event = ctx.payload["event"]
    body = encoded(event)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        SIGNATURE: signature(target.secret, body),
        TIMESTAMP: str(int(time.time())),
        EVENT: event["type"],
        DELIVERY: event["id"],
    }
    timeout = ctx.deps.settings.webhook_timeout_s
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        try:
            answer = await client.post(target.url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise DeliveryFailed(f"{target.url}: {type(exc).__name__}: {exc}") from None
    if not answer.is_success:
        raise DeliveryFailed(f"{target.url} answered {answer.status_code}")
    return {"target": target.id, "status": answer.status_code, "attempt": ctx.attempt}
