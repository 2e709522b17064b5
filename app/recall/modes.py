"""Recall without a search: as it was at a time (as_of), without a query (browse), and the
ids the caller wants first (priority_ids)."""

from app.models import Memory, to_iso
from app.recall import rank
from app.recall.channels import WORD
from app.recall.constants import FETCH_MAX
from app.recall.outcome import Hit, RecallOutcome, Search
from app.recall.state import STATE_FIELDS, is_current
from app.storage.graph.records import BrowseFilter


async def as_of(search: Search) -> RecallOutcome:
    """What the store held at `as_of`: live memories and revisions, by keyword.

    Past states have no vectors (only current content is embedded), so this path ranks by the
    graph's full-text index alone and says so in `degraded`.
    """
    params = search.params
    assert params.as_of is not None  # the service chose this mode for it
    stamp = to_iso(params.as_of)
    candidates: dict[str, tuple[Memory, float]] = {}
    for query in search.queries:
        text = "|".join(WORD.findall(query))
        if not text:
            continue
        found = await search.stores.graph.states_as_of(search.scope, text, stamp, FETCH_MAX)
        for memory, keyword in found:
            if memory.id not in candidates or candidates[memory.id][1] < keyword:
                candidates[memory.id] = (memory, keyword)
    ranked = sorted(candidates.values(), key=lambda pair: -pair[1])
    valid = [
        (m, k)
        for m, k in ranked
        if params.state_mode == "history" or not (m.t_invalid and m.t_invalid <= stamp)
    ]
    hits = as_of_hits(valid[: params.limit])
    return RecallOutcome(
        hits, degraded=["dense (as_of)"], suppressed=len(ranked) - len(valid), relevant=bool(hits)
    )


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


async def browse(search: Search) -> RecallOutcome:
    """No query: the most important memories (or the first in `sort`'s time order) in the tag
    scope and time window, of the types, layers and roles asked for, in the state asked for
    (the search's filter, `flt`, except that tags always match as prefixes, any of them)."""
    params, flt = search.params, search.flt
    shown = BrowseFilter(
        tag_prefixes=[t.lower() for t in params.tags],
        excluded_prefixes=flt.exclude_tag_prefixes or (),
        start=flt.time_gte,
        end=flt.time_lte,
        types=flt.types or (),
        layers=flt.layers or (),
        roles=flt.roles or (),
        current_at=None if params.state_mode == "history" else to_iso(search.now),
        include_decayed=params.include_decayed,
        include_archived=params.include_archived,
    )
    memories = await search.stores.graph.browse(flt.scope, shown, params.limit, params.sort)
    hits = [
        Hit(m, rank.Scored(m.id, m.importance, 0.0, {"importance": m.importance}), "tag", "")
        for m in memories
    ]
    return RecallOutcome(hits)


async def put_priority_first(search: Search, outcome: RecallOutcome) -> None:
    """priority_ids: the current ones in scope are guaranteed the first places (within limit)."""
    params = search.params
    if not params.priority_ids:
        return
    found = await search.stores.graph.get_memories(search.scope, params.priority_ids)
    stamp = to_iso(search.now)
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
