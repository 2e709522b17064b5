"""Long texts embedded whole: a text longer than the model reads (the local model stops at 256
tokens, ~1,000 characters of English) is cut into passages, each embedded, and its vector is
their normalised mean, so a fact in the second half of a long turn still moves the vector that
stands for it. Shorter texts are embedded as they are, one vector each, as before.
"""

from collections.abc import Sequence

import numpy as np

from app.embeddings.base import Embedder

# Characters per passage: within the local model's 256-token window for English prose (a token
# is ~4 characters), with room for the date in front of the first.
PASSAGE_CHARS = 900
_BREAKS = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")


def passages(text: str, size: int = PASSAGE_CHARS) -> list[str]:
    """The text in pieces of at most `size` characters, each cut at the latest paragraph, line,
    sentence, clause or word end in its second half (else at `size`)."""
    return [text[start:end] for start, end in passage_spans(text, size)] or [""]


def passage_spans(text: str, size: int = PASSAGE_CHARS) -> list[tuple[int, int]]:
    """Where `passages` cuts the text: each piece's [start, end) in it, without the whitespace
    around it; a text of whitespace only has none."""
    spans, offset = [], 0
    while len(text) - offset > size:
        window = text[offset : offset + size]
        cut = next((window.rfind(b) + len(b) for b in _BREAKS if window.rfind(b) > size // 2), size)
        spans.append(_stripped(text, offset, offset + cut))
        offset += cut
    spans.append(_stripped(text, offset, len(text)))
    return [(start, end) for start, end in spans if end > start]


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    return start + lead, start + len(piece.rstrip())


async def embed_whole(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """One unit vector per text: a long text's the mean of its passages' (one embedding call)."""
    split = [passages(text) for text in texts]
    flat = [piece for pieces in split for piece in pieces]
    if len(flat) == len(texts):
        return await embedder.embed(texts)
    vectors = np.asarray(await embedder.embed(flat), dtype=np.float32)
    whole, start = [], 0
    for pieces in split:
        mean = vectors[start : start + len(pieces)].mean(axis=0)
        start += len(pieces)
        norm = float(np.linalg.norm(mean))
        whole.append((mean / norm if norm else mean).tolist())
    return whole
