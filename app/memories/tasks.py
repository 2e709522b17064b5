"""Background work on memories: embedding. Handlers carry ids, re-read state, and are repeatable.

An embed job never invents a vector: if the embedder fails, the job fails and is retried with
backoff; after the last attempt the memory is marked `embedding_status=failed` (the job sits in
the dead letters with its error) and `POST /admin/reembed` can try again later.
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from app.embeddings import Embedder, EmbeddingError
from app.embeddings.passages import embed_whole
from app.jobs.kinds import enqueue_embedding, enqueue_enrichment, enqueue_windows
from app.jobs.queue import JobQueue
from app.jobs.spec import JobContext
from app.models import Memory, Status
from app.storage import Stores
from app.storage.mirror import embedding_text, vector_point

log = logging.getLogger(__name__)


@dataclass
class EmbedDeps:
    """What embedding needs; the worker's dependency object provides these attributes."""

    stores: Stores
    embedder: Embedder
    jobs: JobQueue
    embed_with_date: bool = True


async def embed_memories(
    deps: EmbedDeps, user_id: str, memory_ids: Sequence[str], *, force: bool = False
) -> int:
    """Embeds the current content of live memories and writes their points; returns how many.

    Memories already embedded (status done: their content has not changed since) are skipped
    unless `force`, so a duplicate job costs a read, not an embedding. A memory whose content
    changed while it was being embedded is queued again rather than marked done, so a stale
    vector never stands for new content.

    A memory deleted meanwhile must not get its point back (its delete removed the point
    already): the memories are read again just before the vectors are written, and once the
    write is done, the points of those deleted by then are removed. A delete after that second
    read removes the point itself, as it comes after the write.
    """
    memories = await deps.stores.graph.memories_of_user(user_id, memory_ids)
    if not force:
        memories = [m for m in memories if m.embedding_status != Status.DONE]
    if not memories:
        return 0
    texts = [embedding_text(m, with_date=deps.embed_with_date) for m in memories]
    vectors = await embed_whole(deps.embedder, texts)
    await check_same_model(deps)
    embedded = dict(zip((m.id for m in memories), vectors, strict=True))
    current = await _unchanged(deps, user_id, memories)
    if current:
        await deps.stores.vectors.upsert([vector_point(m, embedded[m.id]) for m in current])
    done = await deps.stores.graph.mark_embedded(user_id, {m.id: m.content_hash for m in current})
    await _remove_points_of_deleted(deps, user_id, [m.id for m in current if m.id not in done])
    changed = [m.id for m in memories if m.id not in done]
    live = {m.id for m in await deps.stores.graph.memories_of_user(user_id, changed)}
    if live:
        await enqueue_embedding(deps.jobs, user_id, sorted(live))
    await enqueue_enrichment(deps.jobs, user_id, sorted(done))
    if done and deps.stores.vectors.has_windows:
        await enqueue_windows(deps.jobs, user_id, sorted(done))
    return len(done)


async def _unchanged(deps: EmbedDeps, user_id: str, read: list[Memory]) -> list[Memory]:
    """Those of `read` still live with the same content (the hash) as when they were read."""
    hashes = {m.id: m.content_hash for m in read}
    now = await deps.stores.graph.memories_of_user(user_id, list(hashes))
    return [m for m in now if hashes.get(m.id) == m.content_hash]


async def _remove_points_of_deleted(deps: EmbedDeps, user_id: str, ids: list[str]) -> None:
    """Removes the points just written for memories deleted since (a changed one keeps its point
    until its next embedding replaces it)."""
    if not ids:
        return
    live = {m.id for m in await deps.stores.graph.memories_of_user(user_id, ids)}
    if gone := [i for i in ids if i not in live]:
        await deps.stores.vectors.delete(gone)


async def check_same_model(deps: EmbedDeps) -> None:
    """Refuses to write vectors into an index recorded for another model.

    A worker process still running the previous model (a rolling restart after a change of
    model) would otherwise put old-space vectors back and mark them done for good; failing, the
    job retries until a process with the index's model takes it.
    """
    recorded = await deps.stores.vectors.embedding_model()
    if recorded is not None and recorded != deps.embedder.model:
        raise EmbeddingError(
            f"the vector index holds {recorded} vectors but this process embeds with "
            f"{deps.embedder.model}: restart it with the index's model"
        )


async def embed_job(ctx: JobContext) -> int:
    """Handler of `embed` jobs: ids = [user_id, key], payload = {memory_ids}."""
    deps: EmbedDeps = ctx.deps
    user_id, memory_ids = ctx.ids[0], ctx.payload["memory_ids"]
    try:
        return await embed_memories(deps, user_id, memory_ids)
    except Exception:
        if ctx.attempt >= ctx.max_attempts:
            await deps.stores.graph.set_status_any_user(memory_ids, Status.FAILED.value)
        raise
