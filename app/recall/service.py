"""Recall: channels → fusion → hydration from the graph → state filter → scoring → floor → order.

Every candidate is re-read from the graph within the caller's scope before it is shown, so a
stale or foreign point in the vector index can never surface. Results leave in score order.
"""

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.embeddings import Embedder
from app.errors import BadRequest
from app.memories.fields import parse_type
from app.models import Memory, to_iso, utc_now
from app.recall import decompose, evidence, expansion, filters, rank
from app.recall.channels import WORD, run_channels
from app.recall.names import query_names, without_names
from app.recall.params import RecallRequest
from app.recall.state import STATE_FIELDS, is_current
from app.recall.timewindow import parse_time_phrase
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import BrowseFilter, memory_from_properties
from app.storage.vectors import VectorFilter

log = logging.getLogger(__name__)

FETCH_FACTOR = 4
FETCH_MIN = 50
FETCH_MAX = 200
SORT_KEYS = {
    "time_desc": ("timestamp", True),
    "time_asc": ("timestamp", False),
    "updated_desc": ("updated_at", True),
    "updated_asc": ("updated_at", False),
}


@dataclass
class RecallConfig:
    weights: rank.Weights = field(default_factory=rank.Weights)
    relevance_floor: float = 0.25  # similarity below this, with no term in common → dropped
    relevance_gate: float = 0.4  # no result this similar (or sharing 2 terms) → none relevant
    context_seeds: int = 10  # the best matches whose neighbouring turns get a context lift
    dense_without_names: bool = True  # embed the query without the people it names


@dataclass
class Hit:
    memory: Memory
    scored: rank.Scored
    match_type: str
    query: str
    replaces: str | None = None
    related_to: str | None = None  # set on expansions: the seed they were reached from
    outside_tag_scope: bool = False  # scope_fallback: found once the tag filter was dropped
    relation_type: str | None = None
    via_entity: str | None = None  # entity expansions: the shared entity, `<category>:<slug>`


@dataclass
class RecallOutcome:
    hits: list[Hit]
    window: tuple[datetime, datetime] | None
    time_understood: bool
    degraded: list[str]
    suppressed: int
    replaced: int
    floored: int
    vector_matched: int
    elapsed_ms: float = 0.0
    expanded: int = 0
    scope_fallback: bool = False
    queries: list[str] = field(default_factory=list)  # every query run (queries, sub-queries)
    cut: int = 0  # results the adaptive floor cut (places scope_fallback must not refill)
    relevant: bool = True  # False: a query was searched and nothing stored matches it
    # Milliseconds per step of the search (embed, search, graph), one after the other; the rest
    # of the whole is fusion, scoring and the state rule.
    timings: dict[str, float] = field(default_factory=dict)


def time_window(
    params: RecallRequest, now: datetime
) -> tuple[tuple[datetime, datetime] | None, bool]:
    """start/end win over time_query (AutoMem); an unknown phrase is reported, not ignored."""
    if params.start or params.end:
        return (params.start or datetime.min.replace(tzinfo=now.tzinfo), params.end or now), True
    if params.time_query:
        window = parse_time_phrase(params.time_query, now)
        return window, window is not None
    return None, True


def vector_filter(scope: Scope, params: RecallRequest, window: tuple | None) -> VectorFilter:
    """Tags, labels, types, layers, roles and time pushed down into the vector index."""
    lowered = [t.lower() for t in params.tags]
    prefix = params.tag_match == "prefix"
    any_mode = params.tag_mode == "any"
    return VectorFilter(
        scope=scope,
        tag_prefixes_any=lowered if prefix and any_mode else None,
        tag_prefixes_all=lowered if prefix and not any_mode else None,
        tags_any=params.tags if not prefix and any_mode else None,
        tags_all=params.tags if not prefix and not any_mode else None,
        exclude_tag_prefixes=[t.lower() for t in params.exclude_tags] or None,
        types=_canonical_types(params.types),
        layers=params.layers or None,
        roles=params.roles or None,
        label_pairs_all=params.labels or None,
        include_archived=params.state_mode == "history" or params.include_archived,
        time_gte=to_iso(window[0]) if window else None,
        time_lte=to_iso(window[1]) if window else None,
    )


def _canonical_types(names: list[str]) -> list[str] | None:
    try:
        return [parse_type(n).value for n in names] or None
    except ValueError as exc:
        raise BadRequest(f"Invalid 'type': {exc}") from None


async def recall(
    *, stores: Stores, embedder: Embedder, scope: Scope, params: RecallRequest, config: RecallConfig
) -> RecallOutcome:
    """Runs a recall and returns ordered hits with their score components."""
    started = time.perf_counter()
    now = utc_now()
    window, understood = time_window(params, now)
    flt = vector_filter(scope, params, window)
    queries = _queries(params)
    if params.as_of is not None:
        outcome = await _as_of(stores, scope, params, config, queries)
    elif queries or params.embedding is not None:
        outcome = await _search(stores, embedder, scope, params, config, flt, queries, now)
        await _fall_back_outside_tags(
            stores, embedder, scope, params, config, queries, now, window, outcome
        )
    else:
        outcome = await _browse(stores, params, flt, now)
    await _put_priority_first(stores, scope, params, now, outcome)
    outcome.window, outcome.time_understood = window, understood
    outcome.queries = queries
    outcome.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
    return outcome


def _add_timings(into: dict[str, float], more: dict[str, float]) -> None:
    """Adds each step's milliseconds of `more` to `into` (rounded to 0.01 ms)."""
    for step, elapsed in more.items():
        into[step] = round(into.get(step, 0.0) + elapsed, 2)


def _queries(params: RecallRequest) -> list[str]:
    """The query, the extra `queries` and, with auto_decompose, the query's sub-queries; each
    once."""
    extra = decompose.sub_queries(params.query) if params.auto_decompose else []
    return list(dict.fromkeys(q for q in [params.query, *params.queries, *extra] if q))


async def _fall_back_outside_tags(
    stores: Stores, embedder: Embedder, scope: Scope, params: RecallRequest,
    config: RecallConfig, queries: list[str], now: datetime, window: tuple | None,
    outcome: RecallOutcome,
) -> None:  # fmt: skip
    """scope_fallback: fewer than `limit` results inside the tags → the best of the rest follow,
    flagged `outside_tag_scope`."""
    seeds = outcome.hits[: len(outcome.hits) - outcome.expanded]
    missing = params.limit - len(seeds) - outcome.cut
    if not (params.scope_fallback and params.tags and missing > 0):
        return
    narrowing = {"tags": [], "scope_fallback": False, "expand_relations": False}
    wider = params.model_copy(update={**narrowing, "expand_entities": False})
    found = await _search(
        stores, embedder, scope, wider, config, vector_filter(scope, wider, window), queries, now
    )
    _add_timings(outcome.timings, found.timings)
    shown = {hit.memory.id for hit in outcome.hits}
    extra = [hit for hit in found.hits if hit.memory.id not in shown][:missing]
    for hit in extra:
        hit.outside_tag_scope = True
    outcome.hits = seeds + extra + outcome.hits[len(seeds) :]
    outcome.scope_fallback = bool(extra)
    outcome.relevant = outcome.relevant or bool(extra)


async def _put_priority_first(
    stores: Stores, scope: Scope, params: RecallRequest, now: datetime, outcome: RecallOutcome
) -> None:
    """priority_ids: the current ones in scope are guaranteed the first places (within limit)."""
    if not params.priority_ids:
        return
    found = await stores.graph.get_memories(scope, params.priority_ids)
    stamp = to_iso(now)
    first = [
        Hit(found[i], rank.Scored(i, 1.0, 0.0, {"priority": 1.0}), "priority_id", "")
        for i in params.priority_ids
        if i in found and is_current(found[i].model_dump(include=set(STATE_FIELDS)), params, stamp)
    ][: params.limit]
    chosen = {hit.memory.id for hit in first}
    seeds = outcome.hits[: len(outcome.hits) - outcome.expanded]
    rest = [hit for hit in seeds if hit.memory.id not in chosen][: params.limit - len(first)]
    expansions = outcome.hits[len(seeds) :]
    outcome.hits = first + rest + [hit for hit in expansions if hit.memory.id not in chosen]
    outcome.expanded = len(outcome.hits) - len(first) - len(rest)


@dataclass
class _Pool:
    """Every query's candidates, merged: each id keeps the query it matched best."""

    best: dict[str, tuple[rank.Candidate, str, list[str]]] = field(default_factory=dict)
    fused: dict[str, float] = field(default_factory=dict)  # id -> fused match, computed once
    degraded: set[str] = field(default_factory=set)
    timings: dict[str, float] = field(default_factory=dict)
    vector_matched: int = 0
    # query -> the vectors it was searched with, its keyword terms (see evidence.py)
    vectors: dict[str, evidence.QueryVectors] = field(default_factory=dict)
    terms: dict[str, frozenset[int]] = field(default_factory=dict)
    whole: dict[str, "asyncio.Task[list[float]]"] = field(default_factory=dict)


async def _search(
    stores: Stores, embedder: Embedder, scope: Scope, params: RecallRequest, config: RecallConfig,
    flt: VectorFilter, queries: list[str], now: datetime,
) -> RecallOutcome:  # fmt: skip
    """Searches every query's channels, reads the best candidates from the graph, then scores,
    filters and orders them."""
    pool = await _candidates(stores, embedder, params, config, flt, queries)
    best, fused, timings = pool.best, pool.fused, pool.timings
    limits = thresholds(params, config)
    channels_on = "context" in params.channels
    lifted_from = _context_seeds(best, fused, config, limits) if channels_on else []
    read_started = time.perf_counter()
    shortlist = _shortlist(best, fused, params)
    found = await stores.graph.recall_candidates(scope, shortlist, lifted_from)
    _lift_neighbour_turns(best, fused, found.neighbours, config)
    # Lifts only raise scores, so the shortlist after them is among what was just read.
    read = [i for i in _shortlist(best, fused, params) if i in found.properties]
    facts = {i: found.properties[i] for i in read if filters.matches(found.properties[i], flt)}
    visible, ended = _current_state(facts, params, now)
    replaced = [i for i in (*visible, *ended) if i in found.replaced]
    heads = await _replacements(stores, scope, replaced, params, now)
    timings["graph"] = round((time.perf_counter() - read_started) * 1000, 2)
    visible.update({memory_id: ended[memory_id] for memory_id in ended if memory_id in heads})
    suppressed = len(facts) - len(visible)
    judged = await _judge(stores, pool, visible)
    hits, floored, relevant = _score(
        best, fused, visible, heads, params, config, now, judged, limits
    )
    seeds = _order(hits, params)[: params.limit]
    cut = 0
    if uses_adaptive_floor(params):
        cut = len(seeds) - rank.adaptive_cut([hit.scored.score for hit in seeds])
        seeds = seeds[: len(seeds) - cut]
    expansions = await _expansions(stores, scope, seeds, params, now)
    return RecallOutcome(
        hits=seeds + expansions, window=None, time_understood=True,
        degraded=sorted(pool.degraded), suppressed=suppressed, replaced=len(heads),
        floored=floored + cut,
        vector_matched=pool.vector_matched, expanded=len(expansions), cut=cut, timings=timings,
        relevant=relevant,
    )  # fmt: skip


def thresholds(params: RecallRequest, config: RecallConfig) -> evidence.Thresholds:
    """The floor and gate of a request (its relevance_floor, else the configured one)."""
    floor = config.relevance_floor if params.relevance_floor is None else params.relevance_floor
    return evidence.Thresholds(floor=floor, gate=max(config.relevance_gate, floor))


async def _judge(
    stores: Stores, pool: _Pool, facts: dict[str, dict]
) -> dict[str, evidence.Evidence]:
    """Each candidate's own evidence: its similarity to its query and the terms it shares."""
    await _add_whole_query_vectors(pool)
    wanted = [
        memory_id for memory_id in facts
        if "dense" not in pool.best[memory_id][0].scores
        or len(pool.vectors[pool.best[memory_id][1]].vectors) > 1
    ]  # fmt: skip
    has_vectors = any(v.vectors for v in pool.vectors.values())
    stored = await evidence.stored_vectors(stores.vectors, wanted) if has_vectors else {}
    judged = {}
    for memory_id, props in facts.items():
        candidate, query, _ = pool.best[memory_id]
        terms = pool.terms[query]
        judged[memory_id] = evidence.Evidence(
            similarity=evidence.similarity(
                pool.vectors[query], stored.get(memory_id), candidate.scores.get("dense")
            ),
            terms=evidence.shared_terms(terms, props.get("content") or ""),
            query_terms=len(terms),
        )
    return judged


async def _add_whole_query_vectors(pool: _Pool) -> None:
    """The whole queries' vectors (started beside the search), where they were needed."""
    tasks, pool.whole = pool.whole, {}
    for query, task in tasks.items():
        try:
            pool.vectors[query].add(await task)
        except Exception:  # the embedder's health records it; the names' vector is enough
            log.warning("whole-query embedding failed; similarity without the names only")


async def _candidates(
    stores: Stores, embedder: Embedder, params: RecallRequest, config: RecallConfig,
    flt: VectorFilter, queries: list[str],
) -> _Pool:  # fmt: skip
    """Runs each query's channels and fuses their hits into one pool."""
    fetch = min(max(params.limit * FETCH_FACTOR, FETCH_MIN), FETCH_MAX)
    asked = {params.query, *params.queries}  # the rest of `queries` are auto_decompose's
    pool = _Pool()
    for query in queries or [""]:
        dense_query, terms = await _prepared(query, config)
        run = await run_channels(
            stores, embedder, query=query, vector=params.embedding, flt=flt,
            channels=params.channels, fetch=fetch, dense_query=dense_query,
        )  # fmt: skip
        pool.vectors.setdefault(query, evidence.QueryVectors()).add(run.vector)
        pool.terms[query] = terms
        if dense_query and run.vector is not None:  # the names' meaning counts as evidence too
            pool.whole[query] = asyncio.create_task(embedder.embed_query(query))
        pool.degraded |= run.degraded
        _add_timings(pool.timings, run.timings)
        pool.vector_matched += len(run.hits.get("dense", []))
        ran = list(run.hits)
        share = 1.0 if query in asked else config.weights.sub_query_share
        candidates = rank.fuse(run.hits, share)
        scores = rank.fused_scores(candidates.values(), config.weights, ran)
        for memory_id, candidate in candidates.items():
            match = scores[memory_id] + candidate.context
            if memory_id not in pool.best or match > _match(pool.best, pool.fused, memory_id):
                pool.best[memory_id] = (candidate, query, ran)
                pool.fused[memory_id] = scores[memory_id]
    return pool


def uses_adaptive_floor(params: RecallRequest) -> bool:
    """adaptive_floor applies to score order only (a time order has no score gaps to cut at)."""
    return params.adaptive_floor and params.sort == "score"


async def _expansions(
    stores: Stores, scope: Scope, seeds: list[Hit], params: RecallRequest, now: datetime
) -> list[Hit]:
    """Neighbours of the seeds over relationships (expand_relations), then memories sharing an
    entity with them (expand_entities), appended after the seeds."""
    pairs = [(h.memory.id, h.scored.score) for h in seeds]
    shown = {h.memory.id for h in seeds}
    hits = []
    if params.expand_relations:
        found = await expansion.expand(stores, scope, pairs, params, now)
        hits += [
            Hit(memory, scored, "relation", "", related_to=seed, relation_type=relation)
            for memory, scored, seed, relation in found
            if memory.id not in shown
        ]
    if params.expand_entities:
        shown |= {h.memory.id for h in hits}
        found = await expansion.expand_entities(stores, scope, pairs, params, now, shown)
        hits += [
            Hit(memory, scored, "entity_expansion", "", related_to=seed, via_entity=entity)
            for memory, scored, seed, entity in found
        ]
    return hits


LONG_QUERY = 256  # characters; a longer query is prepared on a thread


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
    best: dict[str, tuple[rank.Candidate, str, list[str]]], fused: dict[str, float],
    config: RecallConfig, limits: evidence.Thresholds,
) -> list[str]:  # fmt: skip
    """The best `context_seeds` candidates by fused match among those above the floor (a term
    in common, or the dense channel's similarity): their neighbouring turns get a lift."""
    above = [i for i in fused if _above_floor(best[i][0], limits)]
    return sorted(above, key=lambda i: -fused[i])[: config.context_seeds]


def _above_floor(candidate: rank.Candidate, limits: evidence.Thresholds) -> bool:
    """The floor on what the channels tell: a keyword hit, or a close enough dense match."""
    if limits.off or {"bm25", "fulltext"} & set(candidate.scores):
        return True
    return candidate.scores.get("dense", 0.0) >= limits.floor


def _match(
    best: dict[str, tuple[rank.Candidate, str, list[str]]], fused: dict[str, float], memory_id: str
) -> float:
    """rank.match_score of a candidate in `best`, from its fused match computed once."""
    return fused[memory_id] + best[memory_id][0].context


def _lift_neighbour_turns(
    best: dict[str, tuple[rank.Candidate, str, list[str]]], fused: dict[str, float],
    neighbours: list[tuple[str, str]], config: RecallConfig,
) -> None:  # fmt: skip
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
            best[neighbour] = (rank.Candidate(neighbour), query, ran)
            fused[neighbour] = rank.fused_score(best[neighbour][0], config.weights, ran)
        candidate = best[neighbour][0]
        candidate.context = max(candidate.context, lift)


SHORTLIST_FACTOR = 3
SHORTLIST_MIN = 30


def _shortlist(
    best: dict[str, tuple[rank.Candidate, str, list[str]]],
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


def _current_state(
    facts: dict[str, dict], params: RecallRequest, now: datetime
) -> tuple[dict[str, dict], dict[str, dict]]:
    """current: hides archived, decayed, not-yet-valid and no-longer-valid memories.

    Returns the visible ones, and those hidden only because their validity ended: these show
    through the head of their replacement chain, if they have one ("lives in Prague" answers as
    "moved to Berlin").
    """
    stamp = to_iso(now)
    visible = {memory_id: f for memory_id, f in facts.items() if is_current(f, params, stamp)}
    ended = {
        memory_id: f
        for memory_id, f in facts.items()
        if memory_id not in visible and is_current({**f, "t_invalid": None}, params, stamp)
    }
    return visible, ended


async def _replacements(
    stores: Stores, scope: Scope, replaced: list[str], params: RecallRequest, now: datetime
) -> dict[str, Memory]:
    """current: a superseded memory (one with a successor) gives way to the current head of
    its replacement chain."""
    if params.state_mode == "history" or not replaced:
        return {}
    heads = await stores.graph.superseded_heads(scope, replaced)
    stamp = to_iso(now)
    return {
        memory_id: head
        for memory_id, head in heads.items()
        if is_current(head.model_dump(include=set(STATE_FIELDS)), params, stamp)
    }


def _score(
    best: dict[str, tuple[rank.Candidate, str, list[str]]],
    fused: dict[str, float],
    visible: dict[str, dict],
    heads: dict[str, Memory],
    params: RecallRequest,
    config: RecallConfig,
    now: datetime,
    judged: dict[str, evidence.Evidence],
    limits: evidence.Thresholds,
) -> tuple[list[Hit], int, bool]:
    """Scores the visible candidates, applies the floor and the gate (evidence.py), builds the
    winners' memories; returns them, how many were dropped, and whether any is relevant."""
    kept: dict[str, tuple[rank.Scored, str, str]] = {}  # shown id -> (score, query, source id)
    floored = 0
    names = {query: query_names(query) for query in {q for _, q, _ in best.values()}}
    for memory_id, facts in visible.items():
        candidate, query, ran = best[memory_id]
        if not evidence.passes_floor(judged[memory_id], limits):
            floored += 1
            continue
        scored = rank.score(
            candidate, facts, now=now, weights=config.weights, channels=ran,
            adjust=params.rerank, names=names[query], priority=params.priority,
            fused=fused[memory_id],
        )  # fmt: skip
        if scored.score < params.min_score:
            floored += 1
            continue
        shown = heads[memory_id].id if memory_id in heads else memory_id
        if shown not in kept or kept[shown][0].score < scored.score:
            kept[shown] = (scored, query, memory_id)
    _drop_raw_beside_its_consolidation(kept, visible)
    if not any(evidence.is_strong(judged[source], limits) for _, _, source in kept.values()):
        return [], floored + len(kept), False
    winners = [shown for shown, _ in sorted(kept.items(), key=lambda kv: _key(kv[1][0]))]
    if params.sort == "score":
        winners = winners[: params.limit]
    memories = {head.id: head for head in heads.values()}
    for shown in winners:
        if shown not in memories:
            memories[shown] = memory_from_properties(visible[shown])
    hits = []
    for shown in winners:
        scored, query, source = kept[shown]
        replaced = source if shown != source else None
        match_type = "state_replacement" if replaced else _match_type(best[source][0])
        hits.append(Hit(memories[shown], scored, match_type, query, replaced))
    return hits, floored, True


def _key(scored: rank.Scored) -> tuple:
    return (-scored.score, -scored.match, scored.id)


def _drop_raw_beside_its_consolidation(
    kept: dict[str, tuple[rank.Scored, str, str]], facts: dict[str, dict]
) -> None:
    """A raw fact whose consolidated memory is also a result says the same thing twice: the
    consolidated one stands for both."""
    for shown in list(kept):
        replaced_by = (facts.get(shown) or {}).get("superseded_by")
        if replaced_by and replaced_by in kept:
            del kept[shown]


def _match_type(candidate: rank.Candidate) -> str:
    if "dense" in candidate.ranks:
        return "vector"
    if "bm25" in candidate.ranks or "fulltext" in candidate.ranks:
        return "keyword"
    return "context"


def _order(hits: list[Hit], params: RecallRequest) -> list[Hit]:
    if params.sort in SORT_KEYS:
        key, reverse = SORT_KEYS[params.sort]
        return sorted(hits, key=lambda h: getattr(h.memory, key) or "", reverse=reverse)
    by_id = {h.scored.id: h for h in hits}
    ordered = rank.rank([h.scored for h in hits])
    return [by_id[s.id] for s in ordered]


async def _as_of(
    stores: Stores, scope: Scope, params: RecallRequest, config: RecallConfig, queries: list[str]
) -> RecallOutcome:
    """What the store held at `as_of`: live memories and revisions, by keyword.

    Past states have no vectors (only current content is embedded), so this path ranks by the
    graph's full-text index alone and says so in `degraded`.
    """
    stamp = to_iso(params.as_of)
    candidates: dict[str, tuple[Memory, float]] = {}
    for query in queries:
        text = "|".join(WORD.findall(query))
        if not text:
            continue
        for memory, keyword in await stores.graph.states_as_of(scope, text, stamp, FETCH_MAX):
            if memory.id not in candidates or candidates[memory.id][1] < keyword:
                candidates[memory.id] = (memory, keyword)
    ranked = sorted(candidates.values(), key=lambda pair: -pair[1])
    valid = [
        (m, k) for m, k in ranked
        if params.state_mode == "history" or not (m.t_invalid and m.t_invalid <= stamp)
    ]  # fmt: skip
    hits = as_of_hits(valid[: params.limit])
    return RecallOutcome(
        hits, None, True, ["dense (as_of)"], len(ranked) - len(valid), 0, 0, 0,
        relevant=bool(hits),
    )  # fmt: skip


def as_of_hits(ranked: list[tuple[Memory, float]]) -> list[Hit]:
    """Keyword matches best first, scored relative to the best; a full-text score of 0 (the
    index can report one right after a write) scores 0, it does not divide by it."""
    top = max((keyword for _, keyword in ranked), default=0.0)
    hits = []
    for memory, keyword in ranked:
        relative = keyword / top if top > 0 else 0.0
        scored = rank.Scored(memory.id, relative, relative, {"keyword": round(keyword, 6)})
        hits.append(Hit(memory, scored, "keyword", ""))
    return hits


async def _browse(
    stores: Stores, params: RecallRequest, flt: VectorFilter, now: datetime
) -> RecallOutcome:
    """No query: the most important memories in the tag scope and time window, of the types,
    layers and roles asked for, in the state asked for (the search's filter, `flt`, except that
    tags always match as prefixes, any of them)."""
    shown = BrowseFilter(
        tag_prefixes=[t.lower() for t in params.tags],
        excluded_prefixes=flt.exclude_tag_prefixes or (),
        start=flt.time_gte,
        end=flt.time_lte,
        types=flt.types or (),
        layers=flt.layers or (),
        roles=flt.roles or (),
        current_at=None if params.state_mode == "history" else to_iso(now),
        include_decayed=params.include_decayed,
        include_archived=params.include_archived,
    )
    memories = await stores.graph.browse(flt.scope, shown, params.limit)
    hits = [
        Hit(m, rank.Scored(m.id, m.importance, 0.0, {"importance": m.importance}), "tag", "")
        for m in memories
    ]
    return RecallOutcome(hits, None, True, [], 0, 0, 0, 0)


def describe(outcome: RecallOutcome) -> dict[str, Any]:
    """Counts for the response's diagnostics."""
    return {
        "suppressed_count": outcome.suppressed,
        "replacement_count": outcome.replaced,
        "floored_count": outcome.floored,
    }
