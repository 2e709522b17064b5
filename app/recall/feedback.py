"""Pseudo-relevance feedback (Rocchio, on the dense vectors): the `prf` channel.

The query's vector, moved towards the centroid of its best first-pass matches, finds memories
that are about what those matches are about but share little with the question's own words or
meaning (the other items of "What activities does Melanie partake in?", an open-domain question's
topic). Its hits count as a bonus: their weighted reciprocal rank adds to the fused match but is
left out of its normaliser (rank.py), so a candidate the first pass found keeps its match, and
one only the feedback finds must still pass the floor on its own similarity to the query
(evidence.py).

A question that asks *when* something happened wants the one memory that dates the event;
feedback brings up memories on the same topic around it, so such questions skip it.
"""

import logging
import re

import numpy as np

from app.recall.constants import FEEDBACK_BETA, FEEDBACK_DOCS
from app.recall.rank import PRF
from app.storage.vectors import VectorFilter, VectorIndex

log = logging.getLogger(__name__)

ASKS_WHEN = re.compile(r"\bwhen\b", re.IGNORECASE)

__all__ = ["PRF", "asks_when", "feedback_hits", "feedback_vector"]


def asks_when(query: str) -> bool:
    """The question asks when something happened: no feedback."""
    return ASKS_WHEN.search(query) is not None


def feedback_vector(query: list[float], docs: list[np.ndarray], beta: float) -> list[float]:
    """query + beta · centroid(docs), at unit length (the index compares by cosine)."""
    moved = np.asarray(query, dtype=np.float32) + beta * np.mean(docs, axis=0)
    norm = float(np.linalg.norm(moved))
    return (moved / norm).tolist() if norm else list(query)


async def feedback_hits(
    vectors: VectorIndex, query: list[float], top: list[str], flt: VectorFilter, fetch: int
) -> list[tuple[str, float]]:
    """The dense search of the query moved towards its best matches `top`, best first; empty if
    none of them has a vector or the index fails (the first pass stands)."""
    try:
        records = await vectors.retrieve(top[:FEEDBACK_DOCS], with_payload=False)
        docs = [np.asarray(r.dense, dtype=np.float32) for r in records.values() if r.dense]
        if not docs:
            return []
        moved = feedback_vector(query, docs, FEEDBACK_BETA)
        hits = await vectors.search_dense(moved, flt, fetch, with_payload=False)
    except Exception:  # the index failed after the first pass: recall goes on without feedback
        log.warning("feedback search failed; first pass only", exc_info=True)
        return []
    return [(hit.id, hit.score) for hit in hits]
