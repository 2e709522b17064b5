"""Erasure for privacy: a memory (and the summaries consolidated from it), or everything of a
user, removed from the graph (every revision included), the vector index and what enrichment
derived, leaving tombstones of ids, times, actor and content hash, and audit events.

After a user's erasure the FalkorDB server is asked to rewrite its append-only file and the
vector shard to merge its segments, so the content also leaves the files on disk at once (both
are heavy, so a single memory's erasure leaves that to the stores' next rewrite and merge).
Artifact files of the erased memories are deleted from disk with them. Backups taken before still
hold it all: docs/operations.md says how long to keep them.
"""

import asyncio
import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from app.errors import MemoryNotFound
from app.memories import artifacts
from app.memories.windows import clear_windows_holding
from app.models import to_iso, utc_now
from app.scope import Scope
from app.storage import Stores, erasure
from app.webhooks.events import ERASED, emit_memories

log = logging.getLogger(__name__)

BATCH = 500


@dataclass
class ErasureReport:
    erased: list[str] = field(default_factory=list)
    derived: list[str] = field(default_factory=list)
    vectors_deleted: int = 0
    other_nodes_deleted: int = 0
    log_rewritten: bool = False

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["erased_count"] = len(self.erased)
        return data


async def erase_memory(
    stores: Stores, memory_id: str, *, actor: str, scope: Scope | None = None
) -> ErasureReport:
    """Erases one memory (live or deleted) and what was consolidated from it. With a scope,
    only a memory the scope can see; otherwise (the admin key) any."""
    graph = stores.graph
    owners = await erasure.known(graph, [memory_id])
    if memory_id not in owners or (scope and not _visible(scope, *owners[memory_id])):
        raise MemoryNotFound(memory_id)
    user_id = owners[memory_id][0]
    derived = await erasure.derived_from(graph, [memory_id])
    derived_owners = await erasure.known(graph, sorted(derived))
    derived = {i for i in derived if derived_owners.get(i, ("",))[0] == user_id}
    report = ErasureReport(derived=sorted(derived))
    await _erase(stores, [memory_id, *sorted(derived)], user_id, actor, report)
    return report


async def erase_user(stores: Stores, user_id: str, *, actor: str) -> ErasureReport:
    """Erases every memory a user ever had, then their sessions, patterns and entities."""
    ids = await erasure.memory_ids_of_user(stores.graph, user_id)
    report = ErasureReport()
    for start in range(0, len(ids), BATCH):
        # Every window of the user goes with its own point: none is left to clear.
        await _erase(stores, ids[start : start + BATCH], user_id, actor, report, windows=False)
    now = to_iso(utc_now())
    report.other_nodes_deleted = await erasure.erase_user_leftovers(
        stores.graph, user_id, actor=actor, now=now, count=len(ids)
    )
    if stores.artifacts is not None:  # files whose memory id the graph no longer knew
        await asyncio.to_thread(stores.artifacts.remove_user, user_id)
    report.log_rewritten = await _flush(stores)
    return report


def _visible(scope: Scope, owner: str, lineage: list[str]) -> bool:
    return owner == scope.user_id and (not lineage or scope.agent_id in lineage)


async def _erase(
    stores: Stores,
    ids: list[str],
    user_id: str,
    actor: str,
    report: ErasureReport,
    *,
    windows: bool = True,
) -> None:
    # Vectors first: a crash after this leaves the graph holding the content, and the same
    # call, run again, finishes; the other order could leave a point with no memory to find.
    # The windows of other turns that embed these texts go with them (memories/windows.py).
    if windows:
        await clear_windows_holding(stores, user_id, ids)
    await stores.vectors.delete(ids)
    report.vectors_deleted += len(ids)
    now = to_iso(utc_now())
    erased = await erasure.erase_memories(stores.graph, ids, [user_id], actor=actor, now=now)
    report.erased += erased
    await emit_memories(stores, user_id, ERASED, erased)
    await artifacts.remove_files(stores, user_id, ids)


async def _flush(stores: Stores) -> bool:
    """Asks both stores to drop erased data from their files (best effort, logged)."""
    optimize = getattr(stores.vectors, "optimize", None)
    if optimize is not None:
        try:
            await optimize()
        except Exception:  # the erasure itself is done; compaction can run later
            log.exception("vector shard optimisation after an erasure failed")
    rewritten = await stores.graph.rewrite_log()
    if not rewritten:
        log.warning(
            "FalkorDB refused BGREWRITEAOF after an erasure; erased content stays in "
            "its append-only file until the next rewrite"
        )
    return rewritten
