"""What a recall takes and gives: its configuration, the typed context its steps share, and
its outcome (hits with their score components and the diagnostics the response reports)."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import TypedDict

from app.embeddings import Embedder
from app.models import Memory
from app.recall import rank
from app.recall.params import RecallRequest
from app.scope import Scope
from app.storage import Stores
from app.storage.vectors import VectorFilter

Window = tuple[datetime, datetime]


@dataclass(frozen=True, kw_only=True)
class RecallConfig:
    """Recall's configuration, built from Settings (recall/tuning.py), which has the defaults."""

    weights: rank.Weights
    relevance_floor: float  # similarity below this, with no term in common → dropped
    relevance_gate: float  # no result this similar (or sharing 2 terms) → none relevant
    context_seeds: int  # the best matches whose neighbouring turns get a context lift
    dense_without_names: bool  # embed the query without the people it names
    unsaid_names: bool  # a question naming what no memory mentions gets nothing (unsaid.py)


@dataclass(frozen=True, kw_only=True)
class Search:
    """One recall's inputs, shared by its steps (candidates → select → expansion)."""

    stores: Stores
    embedder: Embedder
    scope: Scope
    params: RecallRequest
    config: RecallConfig
    flt: VectorFilter  # the request's filters, pushed down into the vector index
    queries: list[str]  # the query, `queries` and auto_decompose's sub-queries, each once
    now: datetime
    window: Window | None


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
    replaced_by: Memory | None = None  # a turn's fact superseded: the fact that replaced it
    passage: tuple[int, int] | None = None  # a long result's part that matched (excerpt.py)


@dataclass
class RecallOutcome:
    hits: list[Hit]
    window: Window | None = None
    time_understood: bool = True
    degraded: list[str] = field(default_factory=list)
    suppressed: int = 0
    replaced: int = 0
    floored: int = 0
    vector_matched: int = 0
    elapsed_ms: float = 0.0
    expanded: int = 0
    scope_fallback: bool = False
    queries: list[str] = field(default_factory=list)  # every query run (queries, sub-queries)
    unsaid: list[str] = field(default_factory=list)  # names asked about that no memory mentions
    cut: int = 0  # results the adaptive floor cut (places scope_fallback must not refill)
    relevant: bool = True  # False: a query was searched and nothing stored matches it
    # Milliseconds per step of the search (embed, search, graph), one after the other; the rest
    # of the whole is fusion, scoring and the state rule.
    timings: dict[str, float] = field(default_factory=dict)


def add_timings(into: dict[str, float], more: dict[str, float]) -> None:
    """Adds each step's milliseconds of `more` to `into` (rounded to 0.01 ms)."""
    for step, elapsed in more.items():
        into[step] = round(into.get(step, 0.0) + elapsed, 2)


class StateCounts(TypedDict):
    suppressed_count: int
    replacement_count: int
    floored_count: int


def describe(outcome: RecallOutcome) -> StateCounts:
    """Counts for the response's diagnostics."""
    return {
        "suppressed_count": outcome.suppressed,
        "replacement_count": outcome.replaced,
        "floored_count": outcome.floored,
    }
