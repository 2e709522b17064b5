"""The body of a /recall response, built from a recall's outcome: the results (`_item`) and
the diagnostics that say how they were found (AutoMem's fields, then Engram's)."""

from typing import Any

from app.memories.schemas import public
from app.models import to_iso
from app.recall.outcome import Hit, RecallOutcome, describe
from app.recall.params import RecallRequest
from app.recall.select import uses_adaptive_floor


def body(params: RecallRequest, outcome: RecallOutcome, floor: float) -> dict[str, Any]:
    """The response for `outcome`; `floor` is the configured relevance floor."""
    results = [_item(hit) for hit in outcome.hits]
    window = outcome.window
    unsupported = []
    if not outcome.time_understood:
        unsupported.append(f"time_query: {params.time_query!r} not understood")
    return {
        "status": "success",
        "query": params.query,
        "results": results,
        "count": len(results),
        "relevant": outcome.relevant,
        "sort": params.sort,
        "state_mode": params.state_mode,
        "degraded": outcome.degraded,
        "vector_search": {"enabled": "dense" in params.channels, "matched": outcome.vector_matched},
        "time_window": {"start": to_iso(window[0]), "end": to_iso(window[1])} if window else None,
        "tags": params.tags,
        "tag_mode": params.tag_mode,
        "tag_match": params.tag_match,
        "state_filter": {
            "current_only": params.state_mode == "current",
            **describe(outcome),
        },
        "score_filter": {
            "min_score": params.min_score,
            "adaptive_floor": uses_adaptive_floor(params),
            "relevance_floor": floor if params.relevance_floor is None else params.relevance_floor,
            "filtered_count": outcome.floored,
        },
        "unsupported": unsupported,
        "query_time_ms": outcome.elapsed_ms,
        "timings_ms": outcome.timings,
        **_context_priority(params),
        **({"scope_fallback": True} if outcome.scope_fallback else {}),
        **({"queries": outcome.queries} if len(outcome.queries) > 1 else {}),
        **_expansion(params, outcome),
    }


def _context_priority(params: RecallRequest) -> dict[str, Any]:
    if not (params.priority or params.priority_ids):
        return {}
    return {
        "context_priority": {
            "language": params.language,
            "priority_tags": list(params.priority.tags)[:10],
            "priority_types": list(params.priority.types),
            "priority_ids": params.priority_ids,
        }
    }


def _expansion(params: RecallRequest, outcome: RecallOutcome) -> dict[str, Any]:
    described = {}
    if params.expand_entities:
        by_entity = [hit for hit in outcome.hits if hit.via_entity]
        described["entity_expansion"] = {
            "enabled": True,
            "expanded_count": len(by_entity),
            "entities_found": list(dict.fromkeys(hit.via_entity for hit in by_entity))[:10],
        }
    if not params.expand_relations:
        return described
    return {
        **described,
        "expansion": {
            "enabled": True,
            "seed_count": len(outcome.hits) - outcome.expanded,
            "expanded_count": outcome.expanded,
            "relation_limit": params.relation_limit,
            "expansion_limit": params.expansion_limit,
            "respect_tags": params.expand_respect_tags,
        },
    }


def _item(hit: Hit) -> dict[str, Any]:
    scored = hit.scored
    item = {
        "id": hit.memory.id,
        "score": round(scored.score, 6),
        "final_score": round(scored.score, 6),
        "original_score": round(scored.match, 6),
        "match_score": round(scored.match, 6),
        "match_type": hit.match_type,
        "source": "qdrant" if hit.match_type in ("vector", "keyword") else "graph",
        "memory": public(hit.memory),
        "score_components": {name: round(value, 6) for name, value in scored.components.items()},
        "relations": [],
        "state": "current",
        "_query": hit.query,
    }
    if hit.replaces:
        item["state_replaces"] = hit.replaces
    if hit.replaced_by is not None:
        later = hit.replaced_by
        item.update(state="replaced", replaced_by={"id": later.id, "timestamp": later.timestamp})
    if hit.outside_tag_scope:
        item["outside_tag_scope"] = True
    if hit.related_to:
        item.update(expanded=True, related_to=[hit.related_to], relation_score=item["score"])
        if hit.via_entity:
            item["expanded_from_entity"] = hit.via_entity
        else:
            item["relation_type"] = hit.relation_type
    return item
