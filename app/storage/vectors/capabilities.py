"""What only some vector indexes can do, for callers that check with isinstance: build their
approximate-search index on request (Edge), and search on the caller's thread (Edge)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from app.storage.vectors.base import ChannelHits, VectorFilter


@dataclass(frozen=True, slots=True)
class IndexBuild:
    """What a build of the approximate-search index did (POST /admin/vectors/index)."""

    engine: str  # edge or qdrant
    built: bool  # False: the engine builds its index itself (a Qdrant server's optimizer)
    seconds: float
    points: int
    segments: int  # -1 where the engine does not say
    indexed_segments: int  # segments whose dense vector has an HNSW index


@runtime_checkable
class IndexBuilder(Protocol):
    """A vector index whose approximate-search index is built on request (Edge, which has no
    background optimizer; a Qdrant server builds its own)."""

    async def build_index(self) -> IndexBuild:
        """Builds the index where the engine's thresholds call for one; blocks the engine."""


@runtime_checkable
class BlockingChannelSearch(Protocol):
    """A vector index whose channel search can also run on the caller's thread (Edge, which
    is in-process; a remote Qdrant is reached with async I/O only)."""

    def search_channels_blocking(
        self, vector: list[float] | None, text: str | None, flt: VectorFilter, limit: int
    ) -> ChannelHits:
        """search_channels, blocking, safe from any thread."""
