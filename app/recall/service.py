"""Recall: candidates (channels → fusion → graph read → context lift) → select (state rule →
evidence → floor and gate → score → order) → expansions; or one of the modes without a search
(as_of, browse). Results leave in score order (or the time order asked for).
"""

import time
from dataclasses import replace

from app.embeddings import Embedder
from app.models import utc_now
from app.recall import candidates, decompose, expansion, modes, select, steps
from app.recall.filters import time_window, vector_filter
from app.recall.outcome import Hit, RecallConfig, RecallOutcome, Search, add_timings
from app.recall.params import RecallRequest
from app.scope import Scope
from app.storage import Stores


async def recall(
    *, stores: Stores, embedder: Embedder, scope: Scope, params: RecallRequest, config: RecallConfig
) -> RecallOutcome:
    """Runs a recall and returns ordered hits with their score components."""
    started = time.perf_counter()
    now = utc_now()
    window, understood = time_window(params, now)
    search = Search(
        stores=stores,
        embedder=embedder,
        scope=scope,
        params=params,
        config=config,
        flt=vector_filter(scope, params, window),
        queries=_queries(params),
        now=now,
        window=window,
    )
    if params.as_of is not None:
        outcome = await modes.as_of(search)
        steps.add(outcome.timings, steps.AS_OF, (time.perf_counter() - started) * 1000)
    elif search.queries or params.embedding is not None:
        outcome = await _search(search)
        await _fall_back_outside_tags(search, outcome)
    else:
        outcome = await modes.browse(search)
        steps.add(outcome.timings, steps.BROWSE, (time.perf_counter() - started) * 1000)
    with steps.timed(outcome.timings, steps.PRIORITY):
        await modes.put_priority_first(search, outcome)
    outcome.window, outcome.time_understood = window, understood
    outcome.queries = search.queries
    outcome.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
    return outcome


def _queries(params: RecallRequest) -> list[str]:
    """The query, the extra `queries` and, with auto_decompose, the query's sub-queries; each
    once."""
    extra = decompose.sub_queries(params.query) if params.auto_decompose else []
    return list(dict.fromkeys(q for q in [params.query, *params.queries, *extra] if q))


async def _search(search: Search) -> RecallOutcome:
    """Searches every query's channels, reads the best candidates from the graph, selects and
    orders them, then appends the expansions asked for."""
    limits = select.thresholds(search.params, search.config)
    pool = await candidates.gather(search)
    try:
        with steps.timed(pool.timings, steps.GRAPH):
            found = await candidates.read(search, pool, limits)
        chosen = await select.select(search, pool, found, limits)
    finally:  # a store failure on the way: the whole-query embeddings are not waited for
        for task in pool.whole.values():
            task.cancel()
    with steps.timed(pool.timings, steps.EXPANSION):
        expansions = await _expansions(search, chosen.hits)
    return RecallOutcome(
        hits=chosen.hits + expansions,
        degraded=sorted(pool.degraded),
        suppressed=chosen.suppressed,
        replaced=chosen.replaced,
        floored=chosen.floored,
        vector_matched=pool.vector_matched,
        expanded=len(expansions),
        cut=chosen.cut,
        timings=pool.timings,
        relevant=chosen.relevant,
        unsaid=chosen.unsaid,
    )


async def _fall_back_outside_tags(search: Search, outcome: RecallOutcome) -> None:
    """scope_fallback: fewer than `limit` results inside the tags → the best of the rest follow,
    flagged `outside_tag_scope`."""
    params = search.params
    seeds = outcome.hits[: len(outcome.hits) - outcome.expanded]
    missing = params.limit - len(seeds) - outcome.cut
    if not (params.scope_fallback and params.tags and missing > 0):
        return
    narrowing = {"tags": [], "scope_fallback": False, "expand_relations": False}
    wider = params.model_copy(update={**narrowing, "expand_entities": False})
    flt = vector_filter(search.scope, wider, search.window)
    found = await _search(replace(search, params=wider, flt=flt))
    add_timings(outcome.timings, found.timings)
    shown = {hit.memory.id for hit in outcome.hits}
    extra = [hit for hit in found.hits if hit.memory.id not in shown][:missing]
    for hit in extra:
        hit.outside_tag_scope = True
    outcome.hits = seeds + extra + outcome.hits[len(seeds) :]
    outcome.scope_fallback = bool(extra)
    outcome.relevant = outcome.relevant or bool(extra)


async def _expansions(search: Search, seeds: list[Hit]) -> list[Hit]:
    """Neighbours of the seeds over relationships (expand_relations), then memories sharing an
    entity with them (expand_entities), appended after the seeds."""
    stores, scope, params, now = search.stores, search.scope, search.params, search.now
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
