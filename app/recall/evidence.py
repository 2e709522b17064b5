"""Relevance: does a memory match the query on its own evidence, and does anything match at all?

A memory's own evidence is what it shares with the query itself:
- meaning: the cosine similarity of its vector to the query's (the best of the query with and
  without the people it names, see names.py), and
- words: how many of the query's keyword terms (BM25's tokens: stop words dropped, stemmed) its
  content contains.

The floor, per memory: a term in common, attribute evidence (the query asks about one of the
user's attributes and the memory is a /remember fact that fills it: attribute_evidence.py), or
similarity ≥ `relevance_floor`. The lifts a memory can get from elsewhere — a neighbouring turn
that matched (context), a shared entity, a relationship, a name, a context hint — raise a memory
that passes the floor; they never admit one that does not.

The gate, per query: something must match strongly — similarity ≥ `relevance_gate`, at least
two query terms in common, every term of a one-term query, attribute evidence, or, for a question
about the user (asking.py) and a memory about the user, a term in common or similarity ≥
PERSONAL_FLOOR (0.15, below the floor): a short fact or turn that answers a question about
oneself often sits at 0.15–0.4 to it ("what is my profession?" — "User works as a civil
engineer."; "what's my name?" — "hey, I am Marta, UX designer" at ~0.23), a turn that tells it in
passing lower still ("what was my previous occupation?" — "I've used Trello in my previous role
as a marketing specialist …" at 0.10, one word in common), and nothing the user stated may be
hidden from them. The same
lower floor admits such a memory past the floor. Off-topic questions are not about the user,
so this opens nothing for them. Otherwise
nothing stored is about the query ("what is the capital of Peru?" asked of someone's chat
history): recall returns no result and says `relevant: false`, so that a chat front-end injects
nothing. Without a query vector (dense channel off or unavailable) a term in common is evidence
enough.

`relevance_floor=0` on a request turns both off (every candidate is shown, as before).

Expansions (`expand_relations`, `expand_entities`) are not lifts: the caller asks for them, they
come after the results and are marked `expanded`, and they start only from results that passed
the floor and the gate, so an unrelated query expands nothing.
"""

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from app.recall.constants import PERSONAL_FLOOR, STRONG_TERMS
from app.scope import Scope
from app.storage.vectors import VectorFilter, VectorIndex
from app.storage.vectors.bm25 import document_terms, query_terms

CACHED_CONTENT = 2000  # characters: the terms of a content up to this long are kept


@dataclass(frozen=True)
class Evidence:
    similarity: float | None  # None: no vector to compare (dense channel off or unavailable)
    terms: int  # query terms the memory's content contains
    query_terms: int  # terms in the query
    attribute: bool = False  # fills an attribute the query asks about (attribute_evidence.py)
    # The query asks about the user ("what is my job", "where does the user live") and the
    # memory is about the user: a question about oneself is about one's own memories.
    about_asker: bool = False


@dataclass
class QueryVectors:
    """The vectors a query was embedded as: without the names (the dense channel's) and, when
    names were taken out, the whole query."""

    vectors: list[np.ndarray] = field(default_factory=list)

    def add(self, vector: list[float] | None) -> None:
        if vector is not None:
            self.vectors.append(np.asarray(vector, dtype=np.float32))


def terms_of(query: str) -> frozenset[int]:
    """The query's keyword terms (BM25 token ids)."""
    found = query_terms(query)
    return frozenset(found.indices) if found else frozenset()


def shared_terms(wanted: frozenset[int], content: str) -> int:
    """How many of `wanted` the content contains."""
    if not wanted or not content:
        return 0
    if len(content) > CACHED_CONTENT:
        return len(wanted.intersection(_content_terms(content)))
    return len(wanted.intersection(_cached_content_terms(content)))


def _content_terms(content: str) -> frozenset[int]:
    found = document_terms(content)
    return frozenset(found.indices) if found else frozenset()


# The same memories come back recall after recall: their terms are kept, by content (a pure
# function of it, so nothing to invalidate), for contents up to CACHED_CONTENT characters.
_cached_content_terms = lru_cache(maxsize=8192)(_content_terms)


async def similarities(
    vectors: VectorIndex, scope: Scope, query: QueryVectors, ids: Sequence[str]
) -> dict[str, float]:
    """The best cosine of each of these memories to the query's vectors, scored by the index
    itself (a dense search restricted to the ids: no vector leaves the engine, which costs less
    than reading them); {} if the index cannot be read (keywords decide)."""
    if not ids or not query.vectors:
        return {}
    only = VectorFilter(scope=scope, ids=list(ids), include_archived=True)
    searches = [
        vectors.search_dense(v.tolist(), only, len(ids), with_payload=False) for v in query.vectors
    ]
    try:
        found = await asyncio.gather(*searches)
    except Exception:  # the index is down: the caller already reports it as degraded
        return {}
    best: dict[str, float] = {}
    for hits in found:
        for hit in hits:
            best[hit.id] = max(hit.score, best.get(hit.id, -1.0))
    return best


def similarity(stored: float | None, known: float | None) -> float | None:
    """The memory's best similarity to its query: the index's score of its stored vector, or
    the dense channel's (`known`), if it found the memory."""
    scores = [s for s in (stored, known) if s is not None]
    return max(scores) if scores else None


@dataclass(frozen=True)
class Thresholds:
    floor: float
    gate: float

    @property
    def off(self) -> bool:
        return self.floor <= 0


def passes_floor(evidence: Evidence, limits: Thresholds) -> bool:
    """A term in common, the attribute asked about, or a meaning close enough (for a question
    about the user and a memory about the user, PERSONAL_FLOOR is close enough)."""
    if limits.off or evidence.terms > 0 or evidence.attribute:
        return True
    if evidence.similarity is None:
        return False
    return evidence.similarity >= _floor_for(evidence, limits)


def _floor_for(evidence: Evidence, limits: Thresholds) -> float:
    return min(limits.floor, PERSONAL_FLOOR) if evidence.about_asker else limits.floor


def is_strong(evidence: Evidence, limits: Thresholds) -> bool:
    """Strong enough to say the query is about something stored (the gate)."""
    if limits.off or evidence.attribute:
        return True
    if evidence.similarity is None:
        return evidence.terms > 0
    if evidence.similarity >= limits.gate or evidence.terms >= STRONG_TERMS:
        return True
    if evidence.about_asker and (
        evidence.terms > 0 or evidence.similarity >= _floor_for(evidence, limits)
    ):
        return True
    return evidence.terms > 0 and evidence.terms == evidence.query_terms


def any_strong(evidence: Mapping[str, Evidence], limits: Thresholds) -> bool:
    return any(is_strong(e, limits) for e in evidence.values())
