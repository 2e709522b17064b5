"""Duplicates on the plain path: `POST /memory` with exactly the content of a current memory of
the same owner returns that memory, reinforced, instead of storing a copy.

Only what a client stores as a standalone memory takes part: a memory posted with a conversation
session (`source.session_id`) is a turn of it, and a turn said twice is said twice (nor does a
turn absorb a standalone memory). `/memory/batch` and `/remember` never come here. A client that
wants the copy sends `allow_duplicate: true`.

Reinforced means what a recall hit means (app/recall/access.py): `last_accessed` now, one more
`access_count`, and a memory with a TTL expires `ttl_days` from now again. Nothing else of the
request is applied to the existing memory (its tags, importance…): PATCH it for that.
"""

import logging
from datetime import datetime, timedelta

from app.models import Memory, Status, to_iso
from app.storage import Stores
from app.storage.graph.duplicates import DUPLICATE_REF, renew_expiry

log = logging.getLogger(__name__)


def may_be_absorbed(memory: Memory) -> bool:
    """Whether a new memory is compared with the stored ones: not a turn of a session."""
    return memory.session_id is None


def answered_by_existing(refs: list[str]) -> str | None:
    """The memory an earlier attempt of this request was answered with (its idempotency key's
    refs), or None if that attempt stored a new memory."""
    if len(refs) == 2 and refs[1] == DUPLICATE_REF:
        return refs[0]
    return None


async def renew(stores: Stores, memory: Memory, now: datetime) -> bool:
    """The TTL part of the reinforcement, in the graph and the vector payload; False if the
    payload could not be written (the graph holds the truth and the sync job repairs it)."""
    if memory.ttl_days is None or memory.pinned:
        return True
    expires_at = to_iso(now + timedelta(days=memory.ttl_days))
    if not await renew_expiry(stores.graph, memory.user_id, memory.id, expires_at, to_iso(now)):
        return True
    memory.expires_at = expires_at
    try:
        await stores.vectors.set_payload_fields([memory.id], {"expires_at": expires_at})
    except Exception:  # the index is down: the sync job repairs the payload (as recall's)
        log.warning("vector payload of %s not updated after reinforcement", memory.id)
        return False
    return True


def embedding_state(stores: Stores, memory: Memory) -> str:
    """StoreResponse's `embedding_status` for an existing memory: `provided` once its vector is
    in the index, else `queued` (an embed job or the sweep makes it) or `pending` (no queue)."""
    if memory.embedding_status == Status.DONE:
        return "provided"
    return "queued" if stores.jobs is not None else "pending"
