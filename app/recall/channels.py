"""Candidate channels, each over-fetching within the caller's scope and filters.

dense and bm25 come from the vector index; when it is down, FalkorDB's full-text index stands in
for bm25 (and the response names the channel that was missing). Each channel returns
[(memory_id, score), …] best first.
"""

import logging
import re
import time
from dataclasses import dataclass, field
from typing import cast

from app.embeddings import ChainingEmbedder, Embedder
from app.storage import Stores
from app.storage.vectors import BlockingChannelSearch, ChannelHits, VectorFilter, VectorIndex

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
    timings: dict[str, float] = field(default_factory=dict)  # step -> ms (embed, search)
    vector: list[float] | None = None  # what the dense channel searched with, if it ran

    def timed(self, step: str, started: float) -> None:
        """Adds the milliseconds since `started` to `step`."""
        self.add(step, (time.perf_counter() - started) * 1000)

    def add(self, step: str, elapsed_ms: float) -> None:
        """Adds `elapsed_ms` to `step`."""
        self.timings[step] = self.timings.get(step, 0.0) + elapsed_ms

    def found(self, hits: ChannelHits) -> None:
        """The index's hits, by channel."""
        if hits.dense is not None:
            self.hits["dense"] = [(hit.id, hit.score) for hit in hits.dense]
        if hits.sparse is not None:
            self.hits["bm25"] = [(hit.id, hit.score) for hit in hits.sparse]


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
) -> ChannelRun:
    """Runs the requested channels for one query; failures degrade, they do not fail.

    The query is embedded first, then both index searches go out as one request: an Edge search
    holds the GIL, so run beside the embedding it only delayed the model's start, and a graph
    read started from its hits competed with the dense search for the same two cores
    (`bench/recall_ab.py` compares such variants side by side). With the local model and the
    in-process index, the model's thread runs the search too, right after the embedding.
    `dense_query`, if given, is what the dense channel embeds instead of `query` (recall passes
    the query without the people it names); keywords always search the query itself.
    """
    run = ChannelRun()
    wants_dense = "dense" in channels
    text = query if "bm25" in channels and query else None
    to_embed = (dense_query or query) if wants_dense and vector is None else None
    if to_embed and _chains(embedder, stores):
        chaining, vectors = (
            cast(ChainingEmbedder, embedder),
            cast(BlockingChannelSearch, stores.vectors),
        )
        await _embed_then_search(chaining, vectors, to_embed, text, flt, fetch, run)
    else:
        if to_embed:
            vector = await _embed(embedder, to_embed, run)
        dense_vector = vector if wants_dense else None
        run.vector = dense_vector
        if dense_vector is not None or text is not None:
            await _search(stores.vectors, dense_vector, text, flt, fetch, run)
    if "qdrant" in run.degraded and text is not None:
        run.hits["bm25"] = await fulltext(stores, text, flt, fetch)
    return run


def _chains(embedder: Embedder, stores: Stores) -> bool:
    """The local model and the in-process index: the search runs on the model's thread."""
    return isinstance(embedder, ChainingEmbedder) and isinstance(
        stores.vectors, BlockingChannelSearch
    )


async def _embed_then_search(
    embedder: ChainingEmbedder,
    vectors: BlockingChannelSearch,
    to_embed: str,
    text: str | None,
    flt: VectorFilter,
    fetch: int,
    run: ChannelRun,
) -> None:
    """The query thread embeds `to_embed`, then searches both indexes: one hand-off instead of
    an embedding's and a search's. A failed embedding still searches the keywords; a failed
    search degrades `qdrant`, not the embedder."""

    def search(vector: list[float]) -> tuple[ChannelHits | Exception, float]:
        started = time.perf_counter()
        try:
            found: ChannelHits | Exception = vectors.search_channels_blocking(
                vector, text, flt, fetch
            )
        except Exception as exc:  # reported on the event loop, below
            found = exc
        return found, (time.perf_counter() - started) * 1000

    started = time.perf_counter()
    try:
        vector, (found, search_ms) = await embedder.embed_query_then(to_embed, search)
    except Exception:  # the embedder's health records it; recall goes on with keywords
        log.warning("query embedding failed; dense channel skipped", exc_info=True)
        run.degraded.add("embedder")
        if text is not None:
            await _search(cast(VectorIndex, vectors), None, text, flt, fetch, run)
        return
    run.vector = vector
    run.add("embed", (time.perf_counter() - started) * 1000 - search_ms)
    run.add("search", search_ms)
    if isinstance(found, Exception):
        log.warning("vector index search failed", exc_info=found)
        run.degraded.add("qdrant")
        return
    run.found(found)


async def _embed(embedder: Embedder, text: str, run: ChannelRun) -> list[float] | None:
    """The query's vector; None (and `embedder` degraded) if the embedding failed."""
    started = time.perf_counter()
    try:
        vector = await embedder.embed_query(text)
    except Exception:  # the embedder's health records it; recall goes on with keywords
        log.warning("query embedding failed; dense channel skipped", exc_info=True)
        run.degraded.add("embedder")
        return None
    run.timed("embed", started)
    return vector


async def _search(
    vectors: VectorIndex,
    vector: list[float] | None,
    text: str | None,
    flt: VectorFilter,
    fetch: int,
    run: ChannelRun,
) -> None:
    """Both index searches in one request; the vector index down → `qdrant` degraded."""
    started = time.perf_counter()
    try:
        found = await vectors.search_channels(vector, text, flt, fetch)
    except Exception:  # the caller falls back to the graph's full-text index for keywords
        log.warning("vector index search failed", exc_info=True)
        run.degraded.add("qdrant")
        return
    run.timed("search", started)
    run.found(found)


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
