"""Graph ↔ vector drift: find it and repair it. The graph is the truth; Qdrant is rebuilt from it.

Drift kinds: a memory with no point (or a point that lost its dense vector while the graph says
embedded), an orphan point with no live memory, and a stale payload (any filterable field that
differs from the graph). Missing points are re-created at once with their keyword vector and
queued for embedding; orphans are deleted; stale payloads are rewritten from the graph.
A point that its memory's own write made after the page was read (a bulk import while the sync
runs) is kept as written: the repair inserts only points that are still absent, so it never
replaces a supplied vector with a keyword-only point and re-embeds it.
"""

import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field

from app.jobs.kinds import enqueue_embedding
from app.memories.tasks import EmbedDeps
from app.models import Memory, Status
from app.storage.mirror import vector_payload, vector_point

log = logging.getLogger(__name__)

PAGE = 256


@dataclass
class SyncReport:
    checked_memories: int = 0
    checked_points: int = 0
    missing_points: list[str] = field(default_factory=list)
    missing_vectors: list[str] = field(default_factory=list)
    orphan_points: list[str] = field(default_factory=list)
    stale_payloads: list[str] = field(default_factory=list)
    queued_embeddings: int = 0
    repaired: bool = False

    @property
    def drift(self) -> int:
        kinds = (self.missing_points, self.missing_vectors, self.orphan_points, self.stale_payloads)
        return sum(len(ids) for ids in kinds)

    def as_dict(self, sample: int = 20) -> dict:
        data = asdict(self)
        for key in ("missing_points", "missing_vectors", "orphan_points", "stale_payloads"):
            data[f"{key}_count"] = len(data[key])
            data[key] = data[key][:sample]
        data["drift"] = self.drift
        return data


async def sync(
    deps: EmbedDeps,
    *,
    repair: bool = True,
    on_page: Callable[[int], Awaitable[None]] | None = None,
) -> SyncReport:
    """Compares every memory with its point and every point with the graph; repairs if asked.
    `on_page` hears how many memories have been checked so far."""
    report = SyncReport(repaired=repair)
    after = ""
    while page := await deps.stores.graph.page_of_memories(after=after, limit=PAGE):
        await _check_page(deps, page, report, repair)
        after = page[-1].id
        if on_page is not None:
            await on_page(report.checked_memories)
    async for ids in deps.stores.vectors.iter_ids(PAGE):
        report.checked_points += len(ids)
        live = await deps.stores.graph.existing_ids(ids)
        orphans = [i for i in ids if i not in live]
        report.orphan_points += orphans
        if repair and orphans:
            await deps.stores.vectors.delete(orphans)
    if report.drift:
        log.warning("sync found drift: %s", report.as_dict(sample=3))
    return report


async def _check_page(
    deps: EmbedDeps, page: list[Memory], report: SyncReport, repair: bool
) -> None:
    report.checked_memories += len(page)
    records = await deps.stores.vectors.retrieve([m.id for m in page])
    missing, unembedded, stale = [], [], []
    for memory in page:
        record = records.get(memory.id)
        if record is None:
            missing.append(memory)
        elif memory.embedding_status == Status.DONE and not record.has_dense:
            unembedded.append(memory)
        elif record.payload != vector_payload(memory):
            stale.append(memory)
    report.missing_points += [m.id for m in missing]
    report.missing_vectors += [m.id for m in unembedded]
    report.stale_payloads += [m.id for m in stale]
    if repair:
        await _repair(deps, missing, unembedded, stale, page, report)


async def _repair(
    deps: EmbedDeps,
    missing: list[Memory],
    unembedded: list[Memory],
    stale: list[Memory],
    page: list[Memory],
    report: SyncReport,
) -> None:
    stores = deps.stores
    if missing:
        # Keyword search works again at once; the dense vector follows from the embed job. A
        # point its own write made since the page was read is kept, and is not lost.
        points = [vector_point(m, None) for m in missing]
        inserted = set(await stores.vectors.insert_missing(points))
        missing = [m for m in missing if m.id in inserted]
    for memory in stale:
        await stores.vectors.set_payload(memory.id, vector_payload(memory))
    lost = [m.id for m in missing + unembedded if m.embedding_status == Status.DONE]
    if lost:
        await stores.graph.set_status_any_user(lost, Status.PENDING.value)
    lost_set = set(lost)
    to_embed = [m for m in page if m.id in lost_set or m.embedding_status != Status.DONE]
    for user_id in {m.user_id for m in to_embed}:
        await enqueue_embedding(
            deps.jobs, user_id, [m.id for m in to_embed if m.user_id == user_id]
        )
        report.queued_embeddings += 1
