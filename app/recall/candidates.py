"""The search step: each query's channels fused into one pool of candidates, the shortlist read
from the graph, and the turns next to the best matches lifted (the context channel).

Every candidate is re-read from the graph within the caller's scope before it can be shown, so a
stale or foreign point in the vector index never surfaces.
"""

import asyncio
from dataclasses import dataclass, field
from typing import NamedTuple

from app.models import MemoryProps
from app.recall import evidence, feedback, filters, rank, steps
from app.recall.asking import wanted_speaker
from app.recall.channels import ChannelRun, run_channels
from app.recall.constants import (
    FEEDBACK_DOCS,
    FETCH_FACTOR,
    FETCH_MAX,
    FETCH_MIN,
    SHORTLIST_FACTOR,
    SHORTLIST_MIN,
)
from app.recall.names import query_names, without_names
from app.recall.outcome import RecallConfig, Search, add_timings
from app.recall.params import RecallRequest
from app.recall.windows import window_hits
from app.storage.graph.records import RecallCandidates
from app.storage.vectors import WINDOW

LONG_QUERY = 256  # characters; a longer query is prepared on a thread


class BestMatch(NamedTuple):
    """A memory's best match over every query: its candidate, that query, the channels run."""

    candidate: rank.Candidate
    query: str
    channels: list[str]


Best = dict[str, BestMatch]  # memory id → its best match


@dataclass
class Pool:
    """Every query's candidates, merged: each id keeps the query it matched best."""

    best: Best = field(default_factory=dict)
    fused: dict[str, float] = field(default_factory=dict)  # id -> fused match, computed once
    degraded: set[str] = field(default_factory=set)
    timings: dict[str, float] = field(default_factory=dict)
    vector_matched: int = 0
    # query -> the vectors it was searched with, its keyword terms (see evidence.py)
    vectors: dict[str, evidence.QueryVectors] = field(default_factory=dict)
    terms: dict[str, frozenset[int]] = field(default_factory=dict)
    whole: dict[str, "asyncio.Task[list[float]]"] = field(default_factory=dict)


@dataclass
class Read:
    """The shortlist as the graph holds it: the facts of those that pass the request's filters,
    and which of them have a successor."""

    facts: dict[str, MemoryProps]
    replaced: set[str]


async def gather(search: Search) -> Pool:
    """Runs each query's channels and fuses their hits into one pool."""
    params, config = search.params, search.config
    fetch = min(max(params.limit * FETCH_FACTOR, FETCH_MIN), FETCH_MAX)
    asked = {params.query, *params.queries}  # the rest of `queries` are auto_decompose's
    pool = Pool()
    for query in search.queries or [""]:
        with steps.timed(pool.timings, steps.PREPARE):
            dense_query, terms = await _prepared(query, config)
        run = await run_channels(
            search.stores,
            search.embedder,
            query=query,
            vector=params.embedding,
            flt=search.flt,
            channels=params.channels,
            fetch=fetch,
            dense_query=dense_query,
        )
        pool.vectors.setdefault(query, evidence.QueryVectors()).add(run.vector)
        pool.terms[query] = terms
        if dense_query and run.vector is not None:  # the names' meaning counts as evidence too
            pool.whole[query] = asyncio.create_task(search.embedder.embed_query(query))
        pool.degraded |= run.degraded
        add_timings(pool.timings, run.timings)
        pool.vector_matched += len(run.hits.get("dense", []))
        share = 1.0 if query in asked else config.weights.sub_query_share
        if share == 1.0:  # both read the first pass; neither reads the other's hits
            with steps.timed(pool.timings, steps.SECOND_PASS):
                feedback_found, windows_found = await asyncio.gather(
                    _feed_back(search, query, run, fetch), _windows(search, query, run, fetch)
                )
            if feedback_found:
                run.hits[feedback.PRF] = feedback_found
            if windows_found:
                run.hits[WINDOW] = windows_found
        with steps.timed(pool.timings, steps.FUSE):
            _merge(pool, run, query, share, config)
    return pool


def _merge(pool: Pool, run: ChannelRun, query: str, share: float, config: RecallConfig) -> None:
    """Fuses one query's channels into the pool: each id keeps the query it matched best."""
    ran = list(run.hits)
    candidates = rank.fuse(run.hits, share)
    scores = rank.fused_scores(candidates.values(), config.weights, ran)
    for memory_id, candidate in candidates.items():
        match = scores[memory_id] + candidate.context
        if memory_id not in pool.best or match > _match(pool.best, pool.fused, memory_id):
            pool.best[memory_id] = BestMatch(candidate, query, ran)
            pool.fused[memory_id] = scores[memory_id]


async def _feed_back(
    search: Search, query: str, run: ChannelRun, fetch: int
) -> list[tuple[str, float]]:
    """The `prf` channel's hits (feedback.py): the dense search moved towards the first pass's
    best matches. Empty for a sub-query, a question asking when, or without the dense channel."""
    weights = search.config.weights
    if not weights.channel_weights.get(feedback.PRF) or feedback.asks_when(query):
        return []
    if run.vector is None or not run.hits.get("dense"):
        return []
    first = rank.fuse(run.hits)
    scores = rank.fused_scores(first.values(), weights, list(run.hits))
    top = sorted(scores, key=lambda i: -scores[i])[:FEEDBACK_DOCS]
    return await feedback.feedback_hits(search.stores.vectors, run.vector, top, search.flt, fetch)


async def _windows(
    search: Search, query: str, run: ChannelRun, fetch: int
) -> list[tuple[str, float]]:
    """The `window` channel's hits (windows.py), searched with the dense channel's vector. Empty
    for a sub-query, a question asking when, or when the channel is off or the dense channel did
    not run."""
    if WINDOW not in search.params.channels or run.vector is None or "dense" not in run.hits:
        return []
    if feedback.asks_when(query):  # it wants the one turn that dates the event, as for feedback
        return []
    if not search.config.weights.channel_weights.get(WINDOW):
        return []
    return await window_hits(search, run.vector, fetch)


async def read(search: Search, pool: Pool, limits: evidence.Thresholds) -> Read:
    """Reads the shortlist and the neighbouring turns of the best matches above the floor,
    lifts those turns, and keeps the facts of what passes the request's filters."""
    params, best, fused = search.params, pool.best, pool.fused
    context_on = "context" in params.channels
    seeds = _context_seeds(best, fused, search.config, limits) if context_on else []
    found: RecallCandidates = await search.stores.graph.recall_candidates(
        search.scope, _shortlist(best, fused, params), seeds
    )
    neighbours = _of_wanted_speakers(found.neighbours, best, found.properties)
    _lift_neighbour_turns(best, fused, neighbours, search.config)
    # Lifts only raise scores, so the shortlist after them is among what was just read.
    shortlist = [i for i in _shortlist(best, fused, params) if i in found.properties]
    facts = {
        i: found.properties[i]
        for i in shortlist
        if filters.matches(found.properties[i], search.flt)
    }
    return Read(facts, found.replaced)


async def _prepared(query: str, config: RecallConfig) -> tuple[str | None, frozenset[int]]:
    """The query's dense text (see _dense_query) and keyword terms; a long query's on a thread,
    so that the event loop stays free for other requests."""

    def prepare() -> tuple[str | None, frozenset[int]]:
        return _dense_query(query, config), evidence.terms_of(query)

    return await asyncio.to_thread(prepare) if len(query) > LONG_QUERY else prepare()


def _dense_query(query: str, config: RecallConfig) -> str | None:
    """The text the dense channel embeds: the query without the people it names, if set so and
    something is left ("What did Caroline research?" → "What did research?"); else None."""
    if not config.dense_without_names:
        return None
    stripped = without_names(query, query_names(query))
    return stripped if stripped and stripped != query else None


def _context_seeds(
    best: Best,
    fused: dict[str, float],
    config: RecallConfig,
    limits: evidence.Thresholds,
) -> list[str]:
    """The best `context_seeds` candidates by fused match among those above the floor (a term
    in common, or the dense channel's similarity): their neighbouring turns get a lift."""
    above = [i for i in fused if _above_floor(best[i].candidate, limits)]
    return sorted(above, key=lambda i: -fused[i])[: config.context_seeds]


def _above_floor(candidate: rank.Candidate, limits: evidence.Thresholds) -> bool:
    """The floor on what the channels tell: a keyword hit, or a close enough dense match."""
    if limits.off or {"bm25", "fulltext"} & set(candidate.scores):
        return True
    return candidate.scores.get("dense", 0.0) >= limits.floor


def _match(best: Best, fused: dict[str, float], memory_id: str) -> float:
    """rank.match_score of a candidate in `best`, from its fused match computed once."""
    return fused[memory_id] + best[memory_id].candidate.context


def _of_wanted_speakers(
    neighbours: list[tuple[str, str]], best: Best, properties: dict[str, MemoryProps]
) -> list[tuple[str, str]]:
    """The neighbours a lift may reach: for a question that asks for one speaker's words
    (asking.wanted_speaker: the user's, for a question about the user), only that speaker's
    turns. In a chat with an assistant, the turn next to the user's statement is the assistant's
    reply to it, which holds the user's facts only as an echo; in a chat between two people,
    whose questions ask about neither side in particular, every neighbour is lifted as before."""
    wanted = {
        query: wanted_speaker(query) for query in {best[seed].query for seed, _ in neighbours}
    }
    return [
        (seed, neighbour)
        for seed, neighbour in neighbours
        if (speaker := wanted[best[seed].query]) is None
        or (properties.get(neighbour) or {}).get("role", speaker) == speaker
    ]


def _lift_neighbour_turns(
    best: Best,
    fused: dict[str, float],
    neighbours: list[tuple[str, str]],
    config: RecallConfig,
) -> None:
    """The context channel: the turns just before and after the best matches.

    An answer often sits in the turn next to the one that matches the question's words
    ("Where did you go?" — "To the LGBTQ support group"). Each neighbour of a seed (see
    _context_seeds) gets a lift of a share of its seed's fused match (the best seed's, if it has
    two); a neighbour no channel found joins the candidates with that lift alone.
    """
    for seed, neighbour in neighbours:
        _, query, ran = best[seed]
        lift = rank.context_lift(fused[seed], config.weights)
        if neighbour not in best:
            best[neighbour] = BestMatch(rank.Candidate(neighbour), query, ran)
            fused[neighbour] = rank.fused_score(best[neighbour].candidate, config.weights, ran)
        candidate = best[neighbour].candidate
        candidate.context = max(candidate.context, lift)


def _shortlist(
    best: Best,
    fused: dict[str, float],
    params: RecallRequest,
) -> list[str]:
    """The candidates worth reading from the graph: the best by fused match.

    The adjustments (importance, confidence, recency, layer) add at most a few tenths, so a
    candidate far down the fused order cannot reach the top `limit`; reading it would cost time.
    """
    if params.sort != "score":
        return list(best)
    ordered = sorted(best, key=lambda i: -_match(best, fused, i))
    return ordered[: _shortlist_size(params)]


def _shortlist_size(params: RecallRequest) -> int:
    return max(params.limit * SHORTLIST_FACTOR, SHORTLIST_MIN)
