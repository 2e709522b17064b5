"""Window vectors: each conversation turn also embedded together with the turns just before it.

A turn's own vector carries only its own words, and an answer often lies in a turn that shares
nothing with the question while the turns around it do ("What did Melanie's kids like?" — "the
dinosaur exhibit!" after two turns about a museum trip). So a turn that follows others in its
conversation (a source session, or a sequence inferred from its writes) gets a second vector, of
its window: the turn and the two before it (storage/graph/windows.py TURNS_BEFORE), as one text,
with the first turn's date in front as for a memory. Recall searches these as the `window`
channel (app/recall/windows.py).

A window only ever looks back, so it is complete when its turn is written: a later turn never
changes it. It is kept fresh by the `windows` job, which runs after every embedding of a memory
(a new turn or an edit) for that memory and the one or two turns after it with a window, whose
windows hold its text, and after a delete for the turns after the deleted ones. The graph
records on each memory the turns its window embeds (`window_members`): recall leaves out a
window one of whose turns is gone, and erasure clears every window that holds an erased text
(memories/erase.py).
"""

import logging
from collections.abc import Sequence

from app.jobs.kinds import enqueue_windows
from app.jobs.spec import JobContext
from app.memories.tasks import EmbedDeps
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import windows as store
from app.storage.graph.windows import WindowTurns
from app.storage.mirror import dated

log = logging.getLogger(__name__)


def window_text(window: WindowTurns, *, with_date: bool) -> str:
    """The turns, earliest first, one a line; with the first one's day in front (as a memory's
    embedding text has: storage/mirror.py embedding_text)."""
    turns = [*window.before, window.centre]
    text = "\n".join(t.content for t in turns)
    return dated(text, turns[0].timestamp, with_date=with_date)


async def refresh_windows(deps: EmbedDeps, user_id: str, memory_ids: Sequence[str]) -> int:
    """Writes the windows of these memories and of the turns after them that have one; returns how
    many were written. Only memories that Engram's embed job embedded get here: not the facts
    `/remember` stores (it embeds them itself), nor memories written with the client's vectors.

    A turn that opens a sequence (no turn before it, one after it) has a window of itself alone:
    its own vector, copied. A memory in no sequence has none, and one whose earlier turns are
    gone and that nothing follows any more loses it.
    """
    vectors, graph = deps.stores.vectors, deps.stores.graph
    if not memory_ids or not vectors.has_windows:
        return 0
    later = await store.later_turns(graph, user_id, memory_ids)
    found = await store.window_turns(graph, user_id, sorted({*memory_ids, *later.windowed}))
    windows = [w for w in found if w.before]
    openers = {w.centre.id for w in found if not w.before and w.centre.id in later.followed}
    openers |= {w.before[0].id for w in windows if len(w.before) == 1}  # nothing before it
    stale = [
        w.centre.id for w in found if not w.before and w.recorded and w.centre.id not in openers
    ]
    if stale:
        await vectors.clear_windows(stale)
        await store.forget_members(graph, user_id, stale)
    texts = [window_text(w, with_date=deps.embed_with_date) for w in windows]
    vectors_of = await deps.embedder.embed(texts) if texts else []
    embedded = dict(zip((w.centre.id for w in windows), vectors_of, strict=True))
    own = await vectors.retrieve(sorted(openers))
    embedded |= {i: r.dense for i, r in own.items() if r.dense is not None}
    # The record first: a window vector is never stored without it, so erasure always finds it.
    members = {w.centre.id: [*(t.id for t in w.before), w.centre.id] for w in windows}
    members |= {i: [i] for i in embedded if i not in members}
    await store.set_members(graph, user_id, members)
    await vectors.set_windows(embedded)
    return len(embedded)


async def backfill_windows(stores: Stores) -> int:
    """For an index that has just gained window vectors (an Edge shard made by an earlier
    release): every embedded memory is marked `pending`, so that the backlog scan embeds it
    again and its window with it. Its own vector stays searchable meanwhile."""
    pending = await stores.graph.mark_all_unembedded()
    log.warning(
        "the vector index has no window vectors yet: %d memories will be embedded again in the "
        "background to add them",
        pending,
    )
    return pending


async def delete_turns(
    stores: Stores, scope: Scope, memory_ids: Sequence[str], *, actor: str, now: str
) -> list[str]:
    """Deletes memories (GraphStore.delete_memories) and queues the windows of the embedded
    turns after them, which held their text, to be written again without it."""
    jobs = stores.jobs
    if jobs is None or not stores.vectors.has_windows:
        return await stores.graph.delete_memories(scope, memory_ids, actor=actor, now=now)
    later = await store.later_turns(stores.graph, scope.user_id, memory_ids)
    deleted = await stores.graph.delete_memories(scope, memory_ids, actor=actor, now=now)
    if deleted and (rewrite := sorted(later.windowed - set(deleted))):
        await enqueue_windows(jobs, scope.user_id, rewrite)
    return deleted


async def windows_job(ctx: JobContext) -> int:
    """Handler of `windows` jobs: ids = [user_id, key], payload = {memory_ids}."""
    return await refresh_windows(ctx.deps, ctx.ids[0], ctx.payload["memory_ids"])


async def clear_windows_holding(stores: Stores, user_id: str, ids: Sequence[str]) -> int:
    """Clears every window of the user that embeds the text of one of `ids` (erasure)."""
    holders = await store.holding(stores.graph, user_id, ids)
    if holders:
        await stores.vectors.clear_windows(holders)
        await store.forget_members(stores.graph, user_id, holders)
    return len(holders)
