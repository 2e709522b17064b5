"""The select step: the state rule, each candidate's own evidence, the floor and the gate, the
score, and the order (rank.py scores; evidence.py judges relevance)."""

import asyncio
import dataclasses
import logging
from dataclasses import dataclass
from datetime import datetime

from app.models import Memory, MemoryProps, to_iso
from app.recall import attribute_evidence, evidence, excerpt, latest, rank, steps, unsaid
from app.recall.asking import asks_about_user, wanted_speaker
from app.recall.candidates import Best, Pool, Read
from app.recall.names import inner_capital_names, name_phrases, query_names
from app.recall.outcome import Hit, RecallConfig, Search
from app.recall.params import RecallRequest
from app.recall.state import STATE_FIELDS, is_current
from app.storage.graph.records import memory_from_properties

log = logging.getLogger(__name__)

SORT_KEYS = {
    "time_desc": ("timestamp", True),
    "time_asc": ("timestamp", False),
    "updated_desc": ("updated_at", True),
    "updated_asc": ("updated_at", False),
}


@dataclass
class Selected:
    hits: list[Hit]  # at most `limit`, in the order asked for
    suppressed: int  # hidden by the state rule
    replaced: int  # shown through the head of their replacement chain
    floored: int  # below the floor, min_score, the gate or the adaptive cut
    cut: int  # of which the adaptive cut
    relevant: bool
    unsaid: list[str] = dataclasses.field(default_factory=list)  # names no memory mentions


def thresholds(params: RecallRequest, config: RecallConfig) -> evidence.Thresholds:
    """The floor and gate of a request (its relevance_floor, else the configured one)."""
    floor = config.relevance_floor if params.relevance_floor is None else params.relevance_floor
    return evidence.Thresholds(floor=floor, gate=max(config.relevance_gate, floor))


def uses_adaptive_floor(params: RecallRequest) -> bool:
    """adaptive_floor applies to score order only (a time order has no score gaps to cut at)."""
    return params.adaptive_floor and params.sort == "score"


async def select(search: Search, pool: Pool, found: Read, limits: evidence.Thresholds) -> Selected:
    """The visible candidates that pass the floor and the gate, scored and ordered."""
    params, now, timings = search.params, search.now, pool.timings
    with steps.timed(timings, steps.STATE):
        visible, ended = _current_state(found.facts, params, now)
        replaced = [i for i in (*visible, *ended) if i in found.replaced]
        heads = await _replacements(search, replaced)
        visible.update({memory_id: ended[memory_id] for memory_id in ended if memory_id in heads})
    suppressed = len(found.facts) - len(visible)
    with steps.timed(timings, steps.EVIDENCE):
        judged = await _judge(search, pool, visible)
    with steps.timed(timings, steps.SCORE):
        scoring = _Scoring(pool.best, pool.fused, visible, heads, judged, limits)
        hits, floored, relevant = _score(scoring, params, search.config, now)
        ranked = _by_score(hits)
        never = await _names_never_said(search, limits, ranked) if relevant else []
        if never:
            ranked, floored, relevant = [], floored + len(ranked), False
        seeds = _order(ranked, params)[: params.limit]
        cut = 0
        if uses_adaptive_floor(params):
            cut = len(seeds) - rank.adaptive_cut([hit.scored.score for hit in seeds])
            seeds = seeds[: len(seeds) - cut]
        seeds = await _mark_replaced(search, seeds, visible)
        seeds = _with_passages(seeds, pool)
    return Selected(seeds, suppressed, len(heads), floored + cut, cut, relevant, never)


@dataclass(frozen=True)
class _Scoring:
    """What scoring reads: the pool, the visible facts, the replacement heads, the evidence."""

    best: Best
    fused: dict[str, float]
    visible: dict[str, MemoryProps]
    heads: dict[str, Memory]
    judged: dict[str, evidence.Evidence]
    limits: evidence.Thresholds


async def _judge(
    search: Search, pool: Pool, facts: dict[str, MemoryProps]
) -> dict[str, evidence.Evidence]:
    """Each candidate's own evidence: its similarity to its query and the terms it shares."""
    await _add_whole_query_vectors(pool)
    wanted = [
        memory_id
        for memory_id in facts
        if "dense" not in pool.best[memory_id].candidate.scores
        or len(pool.vectors[pool.best[memory_id].query].vectors) > 1
    ]
    stored = await _stored_similarities(search, pool, wanted)
    asked = await _asked_attributes(search, pool, facts)
    judged = {}
    personal = {query: asks_about_user(query) for query in pool.terms}
    for memory_id, props in facts.items():
        candidate, query, _ = pool.best[memory_id]
        terms = pool.terms[query]
        judged[memory_id] = evidence.Evidence(
            similarity=evidence.similarity(stored.get(memory_id), candidate.scores.get("dense")),
            terms=evidence.shared_terms(terms, rank.text_of(props)),
            query_terms=len(terms),
            attribute=attribute_evidence.fills(props.get("slot"), asked.get(query, frozenset())),
            about_asker=personal.get(query, False) and props.get("role") == "user",
        )
    return judged


async def _stored_similarities(search: Search, pool: Pool, wanted: list[str]) -> dict[str, float]:
    """Each wanted memory's similarity to the query it matched best (its vectors), by the index."""
    by_query: dict[str, list[str]] = {}
    for memory_id in wanted:
        by_query.setdefault(pool.best[memory_id].query, []).append(memory_id)
    found = await asyncio.gather(
        *(
            evidence.similarities(search.stores.vectors, search.scope, pool.vectors[query], ids)
            for query, ids in by_query.items()
            if query in pool.vectors
        )
    )
    return {memory_id: score for scores in found for memory_id, score in scores.items()}


async def _asked_attributes(
    search: Search, pool: Pool, facts: dict[str, MemoryProps]
) -> dict[str, frozenset[str]]:
    """Per query, the attributes it asks about — only if some candidate fills a slot and a query
    has a vector (the prototypes are not even looked at otherwise)."""
    if not any(props.get("slot") for props in facts.values()):
        return {}
    if not any(vectors.vectors for vectors in pool.vectors.values()):
        return {}  # no query vector to match a topic with (dense off or the embedder down)
    found = await attribute_evidence.prototypes(search.embedder)
    return {
        query: attribute_evidence.matched_attributes(vectors.vectors, found)
        for query, vectors in pool.vectors.items()
    }


async def _add_whole_query_vectors(pool: Pool) -> None:
    """The whole queries' vectors (started beside the search), where they were needed."""
    tasks, pool.whole = pool.whole, {}
    for query, task in tasks.items():
        try:
            pool.vectors[query].add(await task)
        except Exception:  # the embedder's health records it; the names' vector is enough
            log.warning("whole-query embedding failed; similarity without the names only")


def _current_state(
    facts: dict[str, MemoryProps], params: RecallRequest, now: datetime
) -> tuple[dict[str, MemoryProps], dict[str, MemoryProps]]:
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


async def _replacements(search: Search, replaced: list[str]) -> dict[str, Memory]:
    """current: a superseded memory (one with a successor) gives way to the current head of
    its replacement chain."""
    params = search.params
    if params.state_mode == "history" or not replaced:
        return {}
    heads = await search.stores.graph.superseded_heads(search.scope, replaced)
    stamp = to_iso(search.now)
    return {
        memory_id: head
        for memory_id, head in heads.items()
        if is_current(head.model_dump(include=set(STATE_FIELDS)), params, stamp)
    }


def _score(
    scoring: _Scoring, params: RecallRequest, config: RecallConfig, now: datetime
) -> tuple[list[Hit], int, bool]:
    """Scores the visible candidates, applies the floor and the gate (evidence.py), builds the
    winners' memories; returns them, how many were dropped, and whether any is relevant."""
    best, fused, visible, heads = scoring.best, scoring.fused, scoring.visible, scoring.heads
    judged, limits = scoring.judged, scoring.limits
    kept: dict[str, tuple[rank.Scored, str, str]] = {}  # shown id -> (score, query, source id)
    floored = 0
    asked = {match.query for match in best.values()}
    names = {query: query_names(query) for query in asked}
    speakers = {query: wanted_speaker(query) for query in asked}
    for memory_id, facts in visible.items():
        candidate, query, ran = best[memory_id]
        if not evidence.passes_floor(judged[memory_id], limits):
            floored += 1
            continue
        scored = rank.score(
            candidate,
            facts,
            now=now,
            weights=config.weights,
            channels=ran,
            adjust=params.rerank,
            names=names[query],
            priority=params.priority,
            fused=fused[memory_id],
            speaker=speakers[query],
        )
        if judged[memory_id].attribute and params.rerank:
            scored = attribute_evidence.lifted(scored)
        if scored.score < params.min_score:
            floored += 1
            continue
        shown = heads[memory_id].id if memory_id in heads else memory_id
        if shown not in kept or kept[shown][0].score < scored.score:
            kept[shown] = (scored, query, memory_id)
    _drop_raw_beside_its_consolidation(kept, visible)
    if params.rerank and config.weights.latest:
        latest.lift(kept, visible, config.weights.latest)
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
        match_type = "state_replacement" if replaced else _match_type(best[source].candidate)
        hits.append(Hit(memories[shown], scored, match_type, query, replaced))
    return hits, floored, True


async def _names_never_said(
    search: Search, limits: evidence.Thresholds, ranked: list[Hit]
) -> list[str]:
    """The names the query asks about that no memory of the caller mentions (unsaid.py); none
    looked up when the floor is off (every candidate shown, as asked). `ranked`: best first."""
    query = search.params.query or ""
    names = name_phrases(query, query_names(query)) + inner_capital_names(query)
    if not search.config.unsaid_names or limits.off or not names:
        return []
    if unsaid.asks_to_infer(query) or not unsaid.reads_as_english(query):
        return []
    shown = [hit.memory.content for hit in ranked]
    return await unsaid.unsaid(search.stores.graph, search.scope, names, shown)


async def _mark_replaced(
    search: Search, hits: list[Hit], facts: dict[str, MemoryProps]
) -> list[Hit]:
    """A turn whose fact a newer fact superseded (/remember marks it `outdated_by`; rank.py
    lowers it) carries the fact that replaced it, so no one reads it as the current value."""
    later = {h.memory.id: (facts.get(h.memory.id) or {}).get("outdated_by") for h in hits}
    wanted = sorted({fact_id for fact_id in later.values() if fact_id})
    if not wanted:
        return hits
    found = await search.stores.graph.get_memories(search.scope, wanted)
    return [dataclasses.replace(h, replaced_by=found.get(later[h.memory.id] or "")) for h in hits]


def _with_passages(hits: list[Hit], pool: Pool) -> list[Hit]:
    """Each long hit with the passage that matched its query's words (excerpt.py)."""
    return [
        dataclasses.replace(h, passage=passage)
        if (passage := excerpt.best_passage(h.memory.content, pool.terms.get(h.query, frozenset())))
        else h
        for h in hits
    ]


def _key(scored: rank.Scored) -> tuple[float, float, str]:
    return (-scored.score, -scored.match, scored.id)


def _drop_raw_beside_its_consolidation(
    kept: dict[str, tuple[rank.Scored, str, str]], facts: dict[str, MemoryProps]
) -> None:
    """A raw fact whose consolidated memory is also a result says the same thing twice: the
    consolidated one stands for both."""
    for shown in list(kept):
        replaced_by = (facts.get(shown) or {}).get("superseded_by")
        if replaced_by and replaced_by in kept:
            del kept[shown]


def _match_type(candidate: rank.Candidate) -> str:
    if "dense" in candidate.ranks or rank.PRF in candidate.ranks:
        return "vector"
    if "bm25" in candidate.ranks or "fulltext" in candidate.ranks:
        return "keyword"
    return "context"


def _time_key(memory: Memory, key: str) -> tuple[str, str, str]:
    """A time order's key; memories of the same time in the order they were stored (the turns
    of one /remember call share their messages' time, their created_at keeps the call's order)."""
    return (getattr(memory, key) or "", memory.created_at or "", memory.id)


def _by_score(hits: list[Hit]) -> list[Hit]:
    by_id = {h.scored.id: h for h in hits}
    return [by_id[s.id] for s in rank.rank([h.scored for h in hits])]


def _order(ranked: list[Hit], params: RecallRequest) -> list[Hit]:
    """The hits in the asked order: by score as ranked, or by a time key."""
    if params.sort in SORT_KEYS:
        key, reverse = SORT_KEYS[params.sort]
        return sorted(ranked, key=lambda h: _time_key(h.memory, key), reverse=reverse)
    return ranked
