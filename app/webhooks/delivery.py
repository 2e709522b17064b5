"""Delivery of one event to one target: the handler of `webhook` jobs.

The body is the event as compact JSON; `X-Engram-Signature: sha256=<hex>` is the HMAC-SHA256 of
those exact bytes with the target's secret. A 2xx answer delivers it; anything else (another
status, a refused connection, a timeout, an address the policy refuses) fails the attempt, which
the queue retries with backoff and, after the last attempt, keeps as a dead letter.

What a failure records (the job's last error, the dead letter) is a category, never what
answered: "delivery failed" or "refused: address not allowed". Telling a 503 from a refused
connection would let whoever registers targets map which internal ports answer.
"""

import hashlib
import hmac
import json
import time
from typing import Any

import httpx

from app.jobs.spec import JobContext
from app.storage.graph.webhooks import get_target
from app.webhooks.addresses import AddressPolicy, AddressRefused, NameNotResolved
from app.webhooks.transport import delivery_client

SIGNATURE = "X-Engram-Signature"
TIMESTAMP = "X-Engram-Timestamp"
EVENT = "X-Engram-Event"
DELIVERY = "X-Engram-Delivery"
USER_AGENT = "Engram-Webhooks/1"
FAILED = "delivery failed"
REFUSED = "refused: address not allowed"


class DeliveryFailed(Exception):
    """The target did not take the event (the attempt is retried)."""


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def encoded(event: dict[str, Any]) -> bytes:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()


def target_id(ids: list[str]) -> str:
    """The target of a job's ids: [user id, target id, event id] (the user's first, so that an
    erasure finds the job: app/jobs/forget.py), or [target id, event id] queued before that."""
    return ids[1] if len(ids) == 3 else ids[0]


async def webhook_job(ctx: JobContext) -> dict[str, Any]:
    """Handler of `webhook` jobs: ids = [user id, target id, event id], payload = {event}. A
    target deleted meanwhile is not called."""
    target = await get_target(ctx.deps.stores.graph, target_id(ctx.ids))
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
    settings = ctx.deps.settings
    async with delivery_client(AddressPolicy.of(settings), settings.webhook_timeout_s) as client:
        try:
            answer = await client.post(target.url, content=body, headers=headers)
        except (httpx.HTTPError, NameNotResolved):
            raise DeliveryFailed(FAILED) from None
        except AddressRefused:
            raise DeliveryFailed(REFUSED) from None
    if not answer.is_success:
        raise DeliveryFailed(FAILED)
    return {"target": target.id, "status": answer.status_code, "attempt": ctx.attempt}
