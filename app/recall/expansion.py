"""Graph expansion of recall results over relationships, in one batched query.

Expansions come after the seeds, marked as such (`match_type: relation`, `related_to`), so
`limit` stays a hard cap on the seeds. They follow the default-expand types of the registry,
bypass the tag filter unless `expand_respect_tags` (AutoMem's rule), and obey the state rule
(app/recall/state.py), which also hides decayed memories.
"""

from collections import Counter
from datetime import datetime

from app.models import Memory, to_iso
from app.recall import rank
from app.recall.constants import ENTITY_STRENGTH
from app.recall.params import RecallRequest
from app.recall.state import STATE_FIELDS, is_current
from app.relation_types import DEFAULT_EXPAND
from app.scope import Scope
from app.storage import Stores
from app.storage.graph import enrichment as entity_store
from app.storage.graph import relations as edges


def _in_tag_scope(memory: Memory, params: RecallRequest) -> bool:
    excluded = {t.lower() for t in params.exclude_tags}
    if excluded & set(memory.tag_prefixes):
        return False
    if not params.expand_respect_tags or not params.tags:
        return True
    wanted = {t.lower() for t in params.tags}
    return bool(wanted & set(memory.tag_prefixes))


async def expand(
    stores: Stores,
    scope: Scope,
    seeds: list[tuple[str, float]],
    params: RecallRequest,
    now: datetime,
) -> list[tuple[Memory, rank.Scored, str, str]]:
    """(memory, score, seed id, relation type) for neighbours of the seeds, best first."""
    if not seeds:
        return []
    seed_scores = dict(seeds)
    rows = await edges.expand(
        stores.graph,
        scope,
        list(seed_scores),
        types=DEFAULT_EXPAND,
        min_strength=params.expand_min_strength,
        min_importance=params.expand_min_importance,
        limit=min(params.expansion_limit * 4, len(seeds) * params.relation_limit * 4),
    )
    return _collect(rows, seed_scores, params, now)


async def expand_entities(
    stores: Stores,
    scope: Scope,
    seeds: list[tuple[str, float]],
    params: RecallRequest,
    now: datetime,
    exclude: set[str],
) -> list[tuple[Memory, rank.Scored, str, str]]:
    """(memory, score, seed id, entity id) for memories sharing an entity with a seed.

    Entities come from enrichment (MENTIONS edges); both the seed and the memory are in scope.
    """
    if not seeds:
        return []
    seed_scores = dict(seeds)
    found = await entity_store.expand_by_entities(
        stores.graph, scope, list(seed_scores), limit=params.expansion_limit * 4
    )
    rows = [
        (seed, entity, ENTITY_STRENGTH, memory)
        for seed, entity, memory in found
        if memory.id not in exclude and memory.importance >= params.expand_min_importance
    ]
    return _collect(rows, seed_scores, params, now)


def _collect(
    rows: list[tuple[str, str, float, Memory]],
    seed_scores: dict[str, float],
    params: RecallRequest,
    now: datetime,
) -> list[tuple[Memory, rank.Scored, str, str]]:
    """Current, in-tag-scope neighbours, at most relation_limit per seed, best first."""
    per_seed: Counter[str] = Counter()
    stamp, out, seen = to_iso(now), [], set()
    for seed, via, strength, memory in rows:
        if memory.id in seen or per_seed[seed] >= params.relation_limit:
            continue
        state = memory.model_dump(include=set(STATE_FIELDS))
        if not (is_current(state, params, stamp) and _in_tag_scope(memory, params)):
            continue
        relation_score = strength + 0.25 * seed_scores[seed]
        components = {"relation": round(relation_score, 6), "strength": strength}
        out.append((memory, rank.Scored(memory.id, relation_score, 0.0, components), seed, via))
        per_seed[seed] += 1
        seen.add(memory.id)
    out.sort(key=lambda item: -item[1].score)
    return out[: params.expansion_limit]
