"""The request's filters: its time window, the filter pushed down into the vector index, and the
same filter checked again on the graph's facts of every candidate.

The dense and BM25 channels are filtered inside Qdrant, but two kinds of candidate are not: the
neighbouring turns the context step adds, and the keyword fallback's hits when Qdrant is down.
So every candidate is checked here with the same meaning as `storage.vectors.describe_filter`
(the scope itself is already in the graph query).
"""

from datetime import datetime
from typing import Any

from app.errors import BadRequest
from app.memories.fields import parse_type
from app.models import to_iso
from app.recall.params import RecallRequest
from app.scope import Scope
from app.storage.graph.records import parse_json_property
from app.storage.mirror import label_pairs
from app.storage.vectors import VectorFilter
from app.timephrases import parse_time_phrase

Window = tuple[datetime, datetime]


def time_window(params: RecallRequest, now: datetime) -> tuple[Window | None, bool]:
    """start/end win over time_query (AutoMem); an unknown phrase is reported, not ignored."""
    if params.start or params.end:
        return (params.start or datetime.min.replace(tzinfo=now.tzinfo), params.end or now), True
    if params.time_query:
        window = parse_time_phrase(params.time_query, now)
        return window, window is not None
    return None, True


def _canonical_types(names: list[str]) -> list[str] | None:
    try:
        return [parse_type(n).value for n in names] or None
    except ValueError as exc:
        raise BadRequest(f"Invalid 'type': {exc}") from None


def vector_filter(scope: Scope, params: RecallRequest, window: Window | None) -> VectorFilter:
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


def matches(facts: dict[str, Any], flt: VectorFilter) -> bool:
    """Whether a memory (its ranking facts) passes the filter's tags, types, layers, roles,
    labels, time range and archived rule."""
    return (
        _tags_pass(facts, flt)
        and _in(facts.get("type"), flt.types)
        and _in(facts.get("layer"), flt.layers)
        and _in(facts.get("role"), flt.roles)
        and _labels_pass(facts, flt)
        and _time_passes(facts.get(flt.time_field), flt)
        and (flt.include_archived or not facts.get("archived"))
    )


def _tags_pass(facts: dict[str, Any], flt: VectorFilter) -> bool:
    if not _has_tag_rule(flt):  # most recalls: no sets to build
        return True
    tags, prefixes = set(facts.get("tags") or ()), set(facts.get("tag_prefixes") or ())
    return (
        (not flt.tags_any or bool(tags.intersection(flt.tags_any)))
        and (not flt.tag_prefixes_any or bool(prefixes.intersection(flt.tag_prefixes_any)))
        and set(flt.tags_all or ()) <= tags
        and set(flt.tag_prefixes_all or ()) <= prefixes
        and not tags.intersection(flt.exclude_tags or ())
        and not prefixes.intersection(flt.exclude_tag_prefixes or ())
    )


def _has_tag_rule(flt: VectorFilter) -> bool:
    return bool(
        flt.tags_any
        or flt.tag_prefixes_any
        or flt.tags_all
        or flt.tag_prefixes_all
        or flt.exclude_tags
        or flt.exclude_tag_prefixes
    )


def _labels_pass(facts: dict[str, Any], flt: VectorFilter) -> bool:
    # Without a label filter, the labels' JSON is not parsed: most recalls have none.
    if not flt.label_pairs_all:
        return True
    return set(flt.label_pairs_all) <= set(label_pairs(_labels(facts)))


def _in(value: Any, allowed: list[str] | None) -> bool:
    return not allowed or value in allowed


def _labels(facts: dict[str, Any]) -> dict[str, Any]:
    labels: dict[str, Any] = parse_json_property("labels", facts.get("labels"), facts.get("id"))
    return labels


def _time_passes(moment: str | None, flt: VectorFilter) -> bool:
    if not (flt.time_gte or flt.time_lte):
        return True
    if moment is None:
        return False
    return (not flt.time_gte or moment >= flt.time_gte) and (
        not flt.time_lte or moment <= flt.time_lte
    )
