"""Text to BM25 sparse vector, shared by both adapters so keyword scoring is identical.

Uses the BM25 embedder that ships with ``qdrant_edge`` (English tokenizer, stop words and
stemmer; token ids are hashes, so there is no vocabulary to keep). Documents carry BM25
term-frequency weights, queries weight each unique token 1.0; the IDF part is applied by
the engine (sparse vector ``bm25`` uses the IDF modifier). Changing the settings below
changes stored document vectors: re-index after changing them.

Text without indexable tokens yields ``None`` (store no sparse vector), never an empty
vector: qdrant-client counts empty sparse vectors in the IDF corpus size and Edge does not,
which would make the two engines score differently.
"""

from __future__ import annotations

from dataclasses import dataclass

from qdrant_edge import Bm25, Bm25Config

# Memories are a sentence or two, not the ~256-token passages the default assumes; with the
# default, length normalisation all but vanishes for them.
AVG_DOC_TOKENS = 32.0

_MODEL = Bm25(Bm25Config(avg_len=AVG_DOC_TOKENS))


@dataclass(frozen=True, slots=True)
class SparseTerms:
    """A sparse vector as plain lists (token-hash indices and weights)."""

    indices: list[int]
    values: list[float]


def document_terms(text: str) -> SparseTerms | None:
    """Sparse vector for a stored document; None if the text has no indexable token."""
    if not text or not text.strip():
        return None
    vector = _MODEL.embed_document(text)
    return _terms(vector.indices, vector.values)


def query_terms(text: str) -> SparseTerms | None:
    """Sparse vector for a search query; None if the text has no indexable token."""
    if not text or not text.strip():
        return None
    vector = _MODEL.embed_query(text)
    return _terms(vector.indices, vector.values)


def _terms(indices: list[int], values: list[float]) -> SparseTerms | None:
    """Wrap the engine output, mapping an empty vector to None."""
    if not indices:
        return None
    return SparseTerms(indices=list(indices), values=list(values))
