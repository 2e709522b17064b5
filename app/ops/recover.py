"""Recover from vectors: rebuild the graph's memories from the vector points when the graph is
lost. Every point carries its memory's content and fields (app.storage.mirror), so a memory
comes back whole: content, tags, type, times, scope, labels, metadata, source, validity.

What points do not hold cannot come back, and the report says so: revisions, tombstones and
audit history, links between memories, entities and sessions (`engram reprocess` derives
entities again). Nothing is ever deleted: on a graph that holds memories the recovery refuses
unless forced, and forced it only adds the memories the graph lacks. Writes are parameterised
queries, the same ones import uses.
"""

from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import ValidationError

from app.errors import Conflict
from app.jobs.kinds import batches, enqueue_embedding
from app.memories.derive import content_hash
from app.memories.tasks import EmbedDeps
from app.models import Memory, Status, to_iso, utc_now
from app.storage.graph import portable
from app.storage.graph.records import memory_to_properties, parse_json_property

PAGE = 256
SAMPLE = 50
NOT_IN_POINTS = [
    "revisions",
    "tombstones",
    "audit history",
    "links between memories",
    "entities (run engram reprocess)",
    "sessions",
]


@dataclass
class RecoveryReport:
    points: int = 0
    recovered: int = 0
    already_in_graph: int = 0
    unrecoverable: int = 0
    unrecoverable_sample: list[dict[str, str]] = field(default_factory=list)
    queued_for_embedding: int = 0
    not_recoverable_from_points: list[str] = field(default_factory=lambda: list(NOT_IN_POINTS))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lost(self, point_id: str, reason: str) -> None:
        self.unrecoverable += 1
        if len(self.unrecoverable_sample) < SAMPLE:
            self.unrecoverable_sample.append({"id": point_id, "reason": reason})


async def recover_from_vectors(deps: EmbedDeps, *, force: bool, actor: str) -> RecoveryReport:
    graph, vectors = deps.stores.graph, deps.stores.vectors
    held = await graph.count_memories(None)
    if held and not force:
        raise Conflict(
            f"The graph holds {held} memories: recovery never replaces them; pass force=true "
            "(`engram recover-from-vectors --force`) to add only the memories the graph lacks"
        )
    same_model = await vectors.embedding_model() in (None, deps.embedder.model)
    report = RecoveryReport()
    async for ids in vectors.iter_ids(PAGE):
        report.points += len(ids)
        existing = await graph.existing_ids(ids)
        report.already_in_graph += len(existing)
        records = await vectors.retrieve([i for i in ids if i not in existing])
        memories = []
        for record in records.values():
            memory = _memory(record.id, record.payload, record.has_dense and same_model, report)
            if memory is not None:
                memories.append(memory)
        if memories:
            await portable.create(
                graph,
                [memory_to_properties(m) for m in memories],
                actor=actor,
                now=to_iso(utc_now()),
                action="recover",
            )
            report.recovered += len(memories)
            report.queued_for_embedding += await _queue_unembedded(deps, memories)
    return report


def _memory(
    point_id: str, payload: dict[str, Any], embedded: bool, report: RecoveryReport
) -> Memory | None:
    if not payload.get("content"):
        report.lost(point_id, "the point holds no content (written before points carried it)")
        return None
    data = {k: v for k, v in payload.items() if k in Memory.model_fields}
    if isinstance(data.get("metadata"), str):
        data["metadata"] = parse_json_property("metadata", data["metadata"], point_id)
    data.update(
        id=point_id,
        embedding_status=Status.DONE if embedded else Status.PENDING,
        enrichment_status=Status.PENDING,
    )
    try:
        memory = Memory.model_validate(data)
    except ValidationError as exc:
        report.lost(point_id, f"payload is incomplete: {exc.errors()[0].get('loc')}")
        return None
    if content_hash(memory.content) != payload.get("content_hash"):
        report.lost(point_id, "content does not match the point's content hash")
        return None
    return memory


async def _queue_unembedded(deps: EmbedDeps, memories: list[Memory]) -> int:
    pending = [m for m in memories if m.embedding_status != Status.DONE]
    for owner in sorted({m.user_id for m in pending}):
        for chunk in batches([m.id for m in pending if m.user_id == owner]):
            await enqueue_embedding(deps.jobs, owner, chunk)
    return len(pending)
