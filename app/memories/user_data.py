"""Everything of one user at once: DELETE /me deletes every memory, of every agent."""

from app.memories.edits import unmirror
from app.memories.service import DELETE_CHUNK
from app.models import to_iso, utc_now
from app.storage import Stores
from app.storage.graph import owner
from app.webhooks.events import DELETED, emit_memories


async def delete_all(stores: Stores, user_id: str, *, actor: str) -> int:
    """Deletes every live memory of the user, each leaving its tombstone and final revision,
    and their vectors; returns how many. Window vectors go with their points, and no turn of
    the user is left whose window would need writing again."""
    total = 0
    while ids := await owner.live_ids(stores.graph, user_id, limit=DELETE_CHUNK):
        now = to_iso(utc_now())
        deleted = await owner.delete_memories(stores.graph, user_id, ids, actor=actor, now=now)
        if not deleted:
            break
        await unmirror(stores, deleted)
        await emit_memories(stores, user_id, DELETED, deleted)
        total += len(deleted)
    return total
