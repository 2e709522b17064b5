"""Candidate channels, each over-fetching within the caller's scope and filters.

dense and bm25 come from the vector index; when it is down, FalkorDB's full-text index stands in
for bm25 (and the response names the channel that was missing). Each channel returns
[(memory_id, score), …] best first.
"""

import asyncio
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from app.embeddings import Embedder
from app.storage import Stores
from app.storage.vectors import VectorFilter

log = logging.getLogger(__name__)

FULLTEXT = """
CALL db.idx.fulltext.queryNodes('Memory', $text) YIELD node, score
WITH node AS m, score
WHERE m.user_id = $user_id AND (size(m.agent_lineage) = 0 OR $agent_id IN m.agent_lineage)
RETURN m.id, score ORDER BY score DESC LIMIT $limit
"""
WORD = re.compile(r"[A-Za-z0-9]{2,}")


@dataclass
class ChannelRun:
    hits: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    degraded: set[str] = field(default_factory=set)
    timings: dict[str, float] = field(default_factory=dict)  # step -> ms (embed, dense, bm25)

    def timed(self, step: str, started: float) -> None:
        """Adds the milliseconds since `started` to `step`."""
        elapsed = (time.perf_counter() - started) * 1000
        self.timings[step] = self.timings.get(step, 0.0) + elapsed


async def run_channels(
    stores: Stores,
    embedder: Embedder,
    *,
    query: str,
    vector: list[float] | None,
    flt: VectorFilter,
    channels: list[str],
    fetch: int,
    dense_query: str | None = None,
    on_keywords: Callable[[list[tuple[str, float]]], None] | None = None,
) -> ChannelRun:
    """Runs the requested channels for one query; failures degrade, they do not fail.

    `dense_query`, if given, is what the dense channel embeds instead of `query` (recall passes
    the query without the people it names); keywords always search the query itself.
    `on_keywords` is called with the BM25 hits as soon as they arrive (recall starts reading
    them from the graph while the dense channel is still at work).
    """
    run = ChannelRun()
    tasks = []
    if "dense" in channels:
        tasks.append(_dense(stores, embedder, dense_query or query, vector, flt, fetch, run))
    if "bm25" in channels and query:
        tasks.append(_bm25(stores, query, flt, fetch, run, on_keywords))
    await asyncio.gather(*tasks)
    if "qdrant" in run.degraded and "bm25" in channels and query and "bm25" not in run.hits:
        run.hits["bm25"] = await fulltext(stores, query, flt, fetch)
    return run


async def _dense(
    stores: Stores,
    embedder: Embedder,
    query: str,
    vector: list[float] | None,
    flt: VectorFilter,
    fetch: int,
    run: ChannelRun,
) -> None:
    if vector is None and query:
        started = time.perf_counter()
        try:
            vector = await embedder.embed_query(query)
        except Exception:  # the embedder's health records it; recall goes on with keywords
            log.warning("query embedding failed; dense channel skipped", exc_info=True)
            run.degraded.add("embedder")
            return
        run.timed("embed", started)
    if vector is None:
        return
    started = time.perf_counter()
    try:
        hits = await stores.vectors.search_dense(vector, flt, fetch, with_payload=False)
    except Exception:  # the vector index is down: keywords fall back to the graph
        log.warning("dense search failed", exc_info=True)
        run.degraded.add("qdrant")
        return
    run.timed("dense", started)
    run.hits["dense"] = [(hit.id, hit.score) for hit in hits]


async def _bm25(
    stores: Stores, query: str, flt: VectorFilter, fetch: int, run: ChannelRun,
    on_hits: Callable[[list[tuple[str, float]]], None] | None,
) -> None:  # fmt: skip
    started = time.perf_counter()
    try:
        hits = await stores.vectors.search_sparse(query, flt, fetch, with_payload=False)
    except Exception:  # the caller falls back to the graph's full-text index
        log.warning("sparse search failed; using the graph's full-text index", exc_info=True)
        run.degraded.add("qdrant")
        return
    run.timed("bm25", started)
    run.hits["bm25"] = [(hit.id, hit.score) for hit in hits]
    if on_hits is not None:
        on_hits(run.hits["bm25"])


async def fulltext(
    stores: Stores, query: str, flt: VectorFilter, fetch: int
) -> list[tuple[str, float]]:
    """Keyword hits from FalkorDB's full-text index (any query word), within the scope."""
    words = WORD.findall(query)
    if not words:
        return []
    # Query words only, OR-ed: user text never reaches RediSearch's query syntax.
    text = "|".join(words)
    params = {
        "text": text,
        "user_id": flt.scope.user_id,
        "agent_id": flt.scope.agent_id,
        "limit": fetch,
    }
    rows = await stores.graph.ro_query(FULLTEXT, params)
    return [(row[0], float(row[1])) for row in rows]
