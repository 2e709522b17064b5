"""Which part of a long result matched: the passage (embeddings/passages.py, as the memory was
embedded) that holds most of the query's keyword terms, so that a client or a context block can
quote it instead of the whole turn.

Chosen by words, not by meaning: a memory's stored vector is the mean of its passages', and
embedding each passage again at recall costs ~20 ms a passage on the local model (ten results of
two passages each would be 8× a recall's own CPU); storing a vector per passage was measured
as a ranking and lost (bench/passage_scoring.py; docs/decisions.md, "Passages of long
turns"). A long result that shares no term with the query, or whose best passage is tied with
another, has no excerpt: it is shown whole.
"""

from app.embeddings.passages import PASSAGE_CHARS, passage_spans
from app.recall.evidence import shared_terms

Span = tuple[int, int]


def best_passage(content: str, terms: frozenset[int]) -> Span | None:
    """[start, end) of the passage of a long `content` sharing the most of `terms`; None for a
    content that is one passage, or when no passage stands out."""
    if len(content) <= PASSAGE_CHARS or not terms:
        return None
    spans = passage_spans(content)
    if len(spans) < 2:
        return None
    counts = [shared_terms(terms, content[start:end]) for start, end in spans]
    best = max(counts)
    if best == 0 or counts.count(best) > 1:
        return None
    return spans[counts.index(best)]
