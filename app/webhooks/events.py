"""The events and how they are queued: one `webhook` job per target that takes the event.

An event names what changed, never its content (a receiver reads a memory with its own key):
`{id, type, created_at, user_id, data}`, with `data.memory_ids` (at most MAX_IDS an event; more
are split over several events) and what else the type says. A user's events go only to the
targets registered for that user and to those for every user. Each delivery is a job whose ids
start with the user's id, as every job of a user's data does, so that erasing the user stops and
deletes it with its dead letter (app/jobs/forget.py).
"""

import logging
import uuid
from collections.abc import Sequence
from typing import Any

from app.jobs.kinds import WEBHOOK
from app.models import to_iso, utc_now
from app.storage import Stores
from app.storage.graph.webhooks import targets_for

log = logging.getLogger(__name__)

CREATED = "memory.created"
UPDATED = "memory.updated"
SUPERSEDED = "memory.superseded"
DELETED = "memory.deleted"
ERASED = "memory.erased"
REMEMBER_FINISHED = "remember.finished"
EVENT_TYPES = (CREATED, UPDATED, SUPERSEDED, DELETED, ERASED, REMEMBER_FINISHED)
MAX_IDS = 500


def event(event_type: str, user_id: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": uuid.uuid4().hex,
        "type": event_type,
        "created_at": to_iso(utc_now()),
        "user_id": user_id,
        "data": data,
    }


async def emit(stores: Stores, user_id: str, event_type: str, data: dict[str, Any]) -> None:
    """Queues the event for each target that takes it. Best effort: the change it reports is
    already made, so a failure to queue is logged, never raised to the caller."""
    if stores.jobs is None or WEBHOOK not in stores.jobs.kinds:
        return
    try:
        targets = await targets_for(stores.graph, user_id, event_type)
        if not targets:
            return
        body = event(event_type, user_id, data)
        for target_id in targets:
            ids = [user_id, target_id, body["id"]]
            await stores.jobs.enqueue(WEBHOOK, ids, {"event": body})
    except Exception as exc:  # a store outage (reported by /health): one line, no traceback
        log.warning("could not queue the %s webhook event of user %s: %s", event_type, user_id, exc)


async def emit_memories(
    stores: Stores,
    user_id: str,
    event_type: str,
    memory_ids: Sequence[str],
    **data: Any,
) -> None:
    """A memory event, MAX_IDS memories an event."""
    for start in range(0, len(memory_ids), MAX_IDS):
        chunk = list(memory_ids[start : start + MAX_IDS])
        await emit(stores, user_id, event_type, {"memory_ids": chunk, **data})


async def announce_remember(
    stores: Stores, user_id: str, job_id: str, session_id: str, outcome: dict[str, Any]
) -> None:
    """The events of a finished /remember job: the facts it stored, those it superseded (each
    old memory with the new one that replaced it), and the job's end with its figures."""
    stored, pairs = outcome.get("stored") or [], outcome.get("superseded") or []
    source = {"job_id": job_id, "session_id": session_id}
    await emit_memories(stores, user_id, CREATED, stored, **source)
    if pairs:
        replaced = {"memory_ids": [p["old"] for p in pairs][:MAX_IDS], "pairs": pairs[:MAX_IDS]}
        await emit(stores, user_id, SUPERSEDED, replaced | source)
    figures = ("extractor", "extracted", "duplicates", "reinforced", "turns_stored", "elapsed_ms")
    finished = {name: outcome.get(name) for name in figures}
    finished |= {"stored": stored[:MAX_IDS], "superseded": len(pairs)}
    await emit(stores, user_id, REMEMBER_FINISHED, finished | source)
