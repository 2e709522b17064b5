"""The memory resource: store (one, a batch, a write's follow-up) and get; changes to stored
memories are in edits.py.

The graph is written first and is the truth; the vector mirror follows. A mirror failure never
fails the request (the memory is safe in the graph): it is recorded on the health board, which
turns /health degraded, and the sync job repairs the point.
"""

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from app.errors import BadRequest, Conflict, MemoryNotFound
from app.jobs.kinds import batches, enqueue_embedding, enqueue_enrichment, enrichment_enabled
from app.memories import duplicates
from app.memories.build import build_memory
from app.memories.schemas import MemoryCreate
from app.memories.ttl import TtlTable
from app.memories.turn_order import link_session_turns
from app.models import Memory, Status, to_iso, utc_now
from app.scope import Scope
from app.storage import Stores
from app.storage.graph.duplicates import store_unless_duplicate
from app.storage.graph.idempotency import Claim
from app.storage.mirror import vector_point
from app.webhooks.events import CREATED, emit_memories

log = logging.getLogger(__name__)

VECTOR_COMPONENT = "qdrant"
DELETE_CHUNK = 200
# Fields a PATCH may change but not clear (`null`): a memory always has them.
NOT_NULL = ("content", "timestamp", "importance", "confidence", "pinned", "protected", "archived")


@dataclass
class Stored:
    memory: Memory
    previously_deleted: bool
    mirrored: bool
    embedding: str  # provided | queued | pending
    deduplicated: bool = False  # an existing memory had this content: it was returned


@dataclass
class BatchStored:
    ids: list[str]
    mirrored: int
    failed: int = 0
    embedding: str = "pending"  # for those without a vector: queued | pending
    previously_deleted: dict[str, bool] = field(default_factory=dict)
    memories: dict[str, Memory] = field(default_factory=dict)  # as written (or read back)


def enrichment_state(stores: Stores) -> str:
    """What POST /memory reports: "queued" when this process queues enrichment after the write
    (directly, or through the embed job for a memory without a vector), else "disabled"."""
    return "queued" if enrichment_enabled(stores.jobs) else "disabled"


def check_embedding(stores: Stores, embedding: list[float] | None, where: str = "") -> None:
    if embedding is not None and len(embedding) != stores.vectors.dimension:
        raise BadRequest(
            f"{where}Invalid 'embedding': must contain exactly {stores.vectors.dimension} values "
            f"({len(embedding)} provided)"
        )


async def store(
    *,
    stores: Stores,
    scope: Scope,
    actor: str,
    data: MemoryCreate,
    ttl_defaults: TtlTable = None,
    claim: Claim | None = None,
    resume: Sequence[str] | None = None,
) -> Stored:
    """Stores one memory: graph first (with its audit event), then the vector mirror. A current
    memory of the same owner with exactly this content is returned instead, reinforced, unless
    `data.allow_duplicate` (app/memories/duplicates.py).

    `claim`: an idempotency key written with the memory. `resume`: the ids a first attempt of
    this same request wrote; what follows the write is done again (see store_memories)."""
    check_embedding(stores, data.embedding)
    now = utc_now()
    memory = build_memory(data, scope=scope, actor=actor, now=now, ttl_defaults=ttl_defaults)
    if resume is not None:
        return await _store_again(stores, scope, actor, memory, data, list(resume))
    if data.allow_duplicate or not duplicates.may_be_absorbed(memory):
        return await _store_written(stores, scope, actor, memory, data, claim)
    written = await store_unless_duplicate(stores.graph, scope, memory, actor, to_iso(now), claim)
    if written.existing is not None:
        mirrored = await duplicates.renew(stores, written.existing, now)
        return _existing(stores, written.existing, mirrored, written.previously_deleted)
    vectors = {memory.id: data.embedding}
    deleted_before = {memory.id: written.previously_deleted}
    stored = await follow_write(stores, scope, [memory], vectors, deleted_before)
    return await _created(stores, scope, memory, data, stored)


async def _store_again(
    stores: Stores, scope: Scope, actor: str, memory: Memory, data: MemoryCreate, refs: list[str]
) -> Stored:
    """A retry of a request whose first attempt wrote, then died before answering: answered
    from what that attempt recorded (`refs`), nothing written or reinforced twice."""
    existing_id = duplicates.answered_by_existing(refs)
    if existing_id is not None:
        return _existing(stores, await get(stores=stores, scope=scope, memory_id=existing_id))
    _reuse_ids([memory], refs)
    return await _store_written(stores, scope, actor, memory, data, resume=True)


async def _store_written(
    stores: Stores,
    scope: Scope,
    actor: str,
    memory: Memory,
    data: MemoryCreate,
    claim: Claim | None = None,
    resume: bool = False,
) -> Stored:
    """The memory stored as built, whatever is stored already (see store_memories)."""
    stored = await store_memories(
        stores=stores,
        scope=scope,
        actor=actor,
        memories=[memory],
        vectors={memory.id: data.embedding},
        claim=claim,
        resume=resume,
    )
    return await _created(stores, scope, memory, data, stored)


async def _created(
    stores: Stores, scope: Scope, memory: Memory, data: MemoryCreate, stored: BatchStored
) -> Stored:
    """The answer for a memory this request stored, once its webhook is sent."""
    memory = stored.memories.get(memory.id, memory)
    await emit_memories(stores, scope.user_id, CREATED, [memory.id], agent_id=memory.agent_id)
    mirrored = bool(stored.mirrored)
    embedding = stored.embedding
    if data.embedding is not None and mirrored:
        memory.embedding_status = Status.DONE
        embedding = "provided"
    return Stored(memory, stored.previously_deleted.get(memory.id, False), mirrored, embedding)


def _existing(
    stores: Stores, memory: Memory, mirrored: bool = True, previously_deleted: bool = False
) -> Stored:
    """The answer for a request that found its content stored: that memory, nothing created."""
    embedding = duplicates.embedding_state(stores, memory)
    return Stored(memory, previously_deleted, mirrored, embedding, deduplicated=True)


async def queue_embedding(stores: Stores, scope: Scope, memory_ids: list[str]) -> str:
    """Queues embed jobs (provider-sized batches); "pending" if this process has no queue."""
    if stores.jobs is None or not memory_ids:
        return "pending"
    for chunk in batches(memory_ids):
        await enqueue_embedding(stores.jobs, scope.user_id, chunk)
    return "queued"


def _reuse_ids(memories: list[Memory], ids: Sequence[str] | None) -> None:
    """Gives rebuilt memories the ids their first attempt wrote (same request, same order)."""
    if ids is not None:
        if len(ids) != len(memories):
            raise Conflict("Idempotency-Key: the stored write does not match this request")
        for memory, memory_id in zip(memories, ids, strict=True):
            memory.id = memory_id


async def store_batch(
    *,
    stores: Stores,
    scope: Scope,
    actor: str,
    items: list[MemoryCreate],
    ttl_defaults: TtlTable = None,
    claim: Claim | None = None,
    resume: Sequence[str] | None = None,
) -> BatchStored:
    """Stores up to 500 memories in one atomic graph write, then mirrors them (`claim`, `resume`:
    see store)."""
    now = utc_now()
    memories = []
    for index, item in enumerate(items):
        check_embedding(stores, item.embedding, where=f"Memory at index {index}: ")
        try:
            memories.append(
                build_memory(
                    item,
                    scope=scope,
                    actor=actor,
                    now=now,
                    position=index,
                    ttl_defaults=ttl_defaults,
                )
            )
        except BadRequest as exc:
            raise BadRequest(f"Memory at index {index}: {exc.message}") from exc
    _reuse_ids(memories, resume)
    vectors = {m.id: item.embedding for m, item in zip(memories, items, strict=True)}
    stored = await store_memories(
        stores=stores,
        scope=scope,
        actor=actor,
        memories=memories,
        vectors=vectors,
        claim=claim,
        resume=resume is not None,
    )
    await emit_memories(stores, scope.user_id, CREATED, stored.ids, agent_id=scope.agent_id)
    return stored


async def store_memories(
    *,
    stores: Stores,
    scope: Scope,
    actor: str,
    memories: list[Memory],
    vectors: dict[str, list[float] | None],
    claim: Claim | None = None,
    resume: bool = False,
    in_conversation: bool = True,
) -> BatchStored:
    """Writes built memories in one atomic graph write, mirrors them, and queues what follows:
    embedding for those without a vector, enrichment for those with one.

    `in_conversation=False`: the memories are not turns of their session (the facts /remember
    extracts and consolidates), so they are not linked into its order.

    With `claim`, the idempotency key is written in the same query (KeyTaken if it is live). With
    `resume`, the memories were written by an earlier attempt of the same request (a retry after
    a failure that cut it short): they are read back instead, and only what follows the write is
    done again (each step is safe to repeat: turns are merged, points upserted, jobs coalesced).
    """
    if resume:
        found = await stores.graph.get_memories(scope, [m.id for m in memories])
        memories, deleted_before = [found[m.id] for m in memories if m.id in found], {}
    else:
        if claim is not None:
            claim = replace(claim, refs=[m.id for m in memories])
        deleted_before = await stores.graph.create_memories(memories, actor, claim)
    return await follow_write(stores, scope, memories, vectors, deleted_before, in_conversation)


async def follow_write(
    stores: Stores,
    scope: Scope,
    memories: list[Memory],
    vectors: dict[str, list[float] | None],
    deleted_before: dict[str, bool],
    in_conversation: bool = True,
) -> BatchStored:
    """What follows the graph write of new memories: session links, the vector mirror, the
    embed jobs for those without a vector, enrichment for those with one."""
    if in_conversation:
        await link_session_turns(stores, scope, memories)
    mirrored = await mirror(stores, scope, memories, vectors)
    ids = [m.id for m in memories]
    unembedded = [m.id for m in memories if vectors.get(m.id) is None]
    if not mirrored:
        unembedded = ids  # given vectors did not reach the index either: embed them all
    embedding = await queue_embedding(stores, scope, unembedded)
    waiting = set(unembedded)
    await enqueue_enrichment(stores.jobs, scope.user_id, [i for i in ids if i not in waiting])
    return BatchStored(
        ids,
        len(ids) if mirrored else 0,
        0 if mirrored else len(ids),
        embedding,
        deleted_before,
        {m.id: m for m in memories},
    )


async def mirror(
    stores: Stores, scope: Scope, memories: list[Memory], dense: dict[str, list[float] | None]
) -> bool:
    """Upserts the points, marking given embeddings done; False (health degraded) on failure."""
    points = [vector_point(m, dense.get(m.id)) for m in memories]
    try:
        await stores.vectors.upsert(points)
    except Exception as exc:  # any engine failure: the graph already holds the truth
        log.exception("vector mirror write failed for %d memories", len(points))
        stores.health.failed(VECTOR_COMPONENT, exc)
        return False
    stores.health.succeeded(VECTOR_COMPONENT)
    embedded = [m.id for m in memories if dense.get(m.id) is not None]
    if embedded:
        await stores.graph.set_embedding_status(scope, embedded, Status.DONE.value)
    return True


async def get(*, stores: Stores, scope: Scope, memory_id: str) -> Memory:
    """Gets a memory in scope, or raises MemoryNotFound."""
    memory = await stores.graph.get_memory(scope, memory_id)
    if memory is None:
        raise MemoryNotFound(memory_id)
    return memory


def elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
