"""Deterministic hash vectors: for tests, and only when configured explicitly (never a fallback).

A vector is a bag of words (each lower-cased word hashed to a signed bucket) plus a smaller
component seeded by the sha256 of the whole text, scaled to unit length. So identical texts
get identical vectors, different texts get different ones, and texts that share words are
closer than unrelated texts. It carries no meaning beyond word overlap.
"""

import hashlib
import math
import re
from collections.abc import Sequence
from typing import Any

from app.embeddings.base import HealthTracker, check_vector, text_list

WORD = re.compile(r"\w+")
# The bag of words dominates, so word overlap decides similarity; the text part breaks ties.
WORDS_WEIGHT = 1.0
TEXT_WEIGHT = 0.5


def word_bucket(word: str, dimension: int) -> tuple[int, float]:
    """The bucket and sign a word adds to."""
    digest = hashlib.sha256(word.encode()).digest()
    return int.from_bytes(digest[:8], "big") % dimension, 1.0 if digest[8] & 1 else -1.0


def bag_of_words(text: str, dimension: int) -> list[float]:
    """Signed word counts hashed into `dimension` buckets."""
    vector = [0.0] * dimension
    for word in WORD.findall(text.lower()):
        bucket, sign = word_bucket(word, dimension)
        vector[bucket] += sign
    return vector


def text_noise(text: str, dimension: int) -> list[float]:
    """Values in [-1, 1) drawn from the sha256 of the whole text."""
    seed = hashlib.sha256(text.encode()).digest()
    stream = hashlib.shake_256(seed).digest(4 * dimension)
    return [
        int.from_bytes(stream[i : i + 4], "big") / 2**31 - 1.0 for i in range(0, len(stream), 4)
    ]


def unit(vector: list[float]) -> list[float]:
    """`vector` scaled to length 1 (the zero vector stays zero)."""
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else vector


def hash_vector(text: str, dimension: int) -> list[float]:
    """The unit vector of `text`."""
    words, noise = unit(bag_of_words(text, dimension)), unit(text_noise(text, dimension))
    return unit([WORDS_WEIGHT * w + TEXT_WEIGHT * n for w, n in zip(words, noise, strict=True)])


class HashEmbedder:
    """Deterministic vectors with no model; the provider "hash"."""

    name = "hash"

    def __init__(self, *, dimension: int = 384) -> None:
        if dimension < 2:
            raise ValueError("dimension must be at least 2")
        self.dimension = dimension
        self.model = f"hash-bow-v1-{dimension}"
        self._health = HealthTracker()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order."""
        vectors = [hash_vector(text, self.dimension) for text in text_list(texts)]
        for vector in vectors:
            check_vector(vector, self.dimension)
        if vectors:
            self._health.success()
        return vectors

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return (await self.embed([text]))[0]

    async def warm_up(self) -> None:
        """One embedding call, so that a broken setup shows at start-up."""
        await self.embed(["warm up"])

    async def close(self) -> None:
        """Nothing to release."""

    def health(self) -> dict[str, Any]:
        """State from recent calls (always ok: nothing here can fail)."""
        return self._health.snapshot()
