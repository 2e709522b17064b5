"""Erasure for privacy: a memory (and the summaries consolidated from it), or everything of a
user, removed from the graph (every revision included), the vector index and what enrichment
derived, leaving tombstones of ids, times, actor and content hash, and audit events.

Then the content leaves the disk before the answer (`_reach_disk`): the user's job records go,
the vector shard is rewritten from its live points, FalkorDB's query log is deleted and its
append-only file rewritten, and every file of the data directory is searched for the erased
texts (`disk` in the report). Artifact files of the erased memories are deleted from disk
with them. Backups taken before still hold it: docs/operations.md says how
long to keep them.

The `memory.erased` webhook events are queued last, after the user's job records were deleted
(those include the deliveries of the user's earlier events): they carry ids only.
"""

import asyncio
import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from app.artifacts import service as artifacts
from app.config import Settings
from app.errors import MemoryNotFound
from app.jobs.forget import erase_user_jobs
from app.jobs.queue import JobQueue
from app.memories.windows import clear_windows_holding
from app.models import to_iso, utc_now
from app.ratelimit import ERASURES, check_rate
from app.scope import Scope
from app.storage import Stores, file_scan
from app.storage.graph import erasure
from app.webhooks.events import ERASED, emit_memories

log = logging.getLogger(__name__)

BATCH = 500
# How long the search of the files waits for the stores to delete the files they replaced.
DISK_WAIT_S = 10.0


@dataclass
class ErasureReport:
    erased: list[str] = field(default_factory=list)
    derived: list[str] = field(default_factory=list)
    vectors_deleted: int = 0
    other_nodes_deleted: int = 0
    job_records_deleted: int = 0
    vectors_rewritten: bool = False
    log_rewritten: bool = False
    # The search of the data directory's files afterwards; None when no store keeps them there.
    disk: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["erased_count"] = len(self.erased)
        return data


async def count_erasure(jobs: JobQueue, settings: Settings, user_id: str) -> None:
    """Counts one erasure asked by a user; RateLimited past ERASE_RATE_PER_MINUTE (each
    rewrites files that hold every user's data). The admin's erasures are not counted."""
    await check_rate(jobs.redis, jobs.namespace, ERASURES, user_id, settings.erase_rate_per_minute)


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
    ids = [memory_id, *sorted(derived)]
    texts = await erasure.texts_of(graph, ids)
    report.job_records_deleted = await _stop_jobs(stores, user_id, texts)
    await _erase(stores, ids, user_id, actor, report)
    await _reach_disk(stores, user_id, texts, report, only_holding=True)
    await emit_memories(stores, user_id, ERASED, report.erased)
    return report


async def erase_user(stores: Stores, user_id: str, *, actor: str) -> ErasureReport:
    """Erases every memory a user ever had, then their sessions, patterns and entities."""
    ids = await erasure.memory_ids_of_user(stores.graph, user_id)
    texts = await erasure.texts_of(stores.graph, ids)
    report = ErasureReport(job_records_deleted=await _stop_jobs(stores, user_id, None))
    for start in range(0, len(ids), BATCH):
        # Every window of the user goes with its own point: none is left to clear.
        await _erase(stores, ids[start : start + BATCH], user_id, actor, report, windows=False)
    now = to_iso(utc_now())
    report.other_nodes_deleted = await erasure.erase_user_leftovers(
        stores.graph, user_id, actor=actor, now=now, count=len(ids)
    )
    if stores.artifacts is not None:  # files whose memory id the graph no longer knew
        await asyncio.to_thread(stores.artifacts.remove_user, user_id)
    await _reach_disk(stores, user_id, texts, report, only_holding=False)
    await emit_memories(stores, user_id, ERASED, report.erased)
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
    report.erased += await erasure.erase_memories(
        stores.graph, ids, [user_id], actor=actor, now=now
    )
    await artifacts.remove_files(stores, user_id, ids)


async def _stop_jobs(stores: Stores, user_id: str, holding: list[str] | None) -> int:
    """Before the graph is erased: a job still running on the content would write it again."""
    if stores.jobs is None:
        return 0
    return await erase_user_jobs(stores.jobs, user_id, holding)


async def _reach_disk(
    stores: Stores, user_id: str, texts: list[str], report: ErasureReport, *, only_holding: bool
) -> None:
    """Removes the erased texts from every file the stores write (`only_holding`: of the user's
    job records, only those holding one of the texts), then searches the files for them."""
    if stores.jobs is not None:
        holding = texts if only_holding else None
        # the records of the jobs stopped before, and of jobs the erasure queued
        report.job_records_deleted += await erase_user_jobs(stores.jobs, user_id, holding)
    report.vectors_rewritten = await _rewrite_vectors(stores)
    await stores.graph.drop_query_log()
    report.log_rewritten = await stores.graph.rewrite_log()
    if not report.log_rewritten:
        log.warning(
            "FalkorDB's AOF rewrite after an erasure failed; the erased content stays "
            "in its append-only file until the next rewrite"
        )
    if stores.data_dir is not None:
        check = await file_scan.wait_until_clean(stores.data_dir, texts, DISK_WAIT_S)
        report.disk = {**check.as_dict(), "clean_at": to_iso(utc_now()) if check.clean else None}
        if not check.clean:
            log.warning(
                "erased texts are still in files of the data directory: %s",
                ", ".join(check.found_in),
            )


async def _rewrite_vectors(stores: Stores) -> bool:
    """Edge's files keep deleted points until the shard is rewritten; a Qdrant server's are
    not ours to rewrite (its own optimizer vacuums them)."""
    purge = getattr(stores.vectors, "purge_deleted", None)
    if purge is None:
        return False
    try:
        await purge()
    except Exception:  # the erasure itself is done; the next one rewrites the shard
        log.exception("rewriting the vector shard after an erasure failed")
        return False
    return True
