"""The embedder interface, its errors, and the health bookkeeping every embedder shares."""

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from app.metrics import EMBED_ERRORS, EMBED_LATENCY

HealthState = Literal["ok", "degraded", "down"]
T = TypeVar("T")

# Consecutive failed calls after which a still-reachable embedder is reported "down".
DOWN_AFTER_FAILURES = 3


class EmbeddingError(Exception):
    """An embedding call failed; no vectors were produced."""


class EmbedderUnavailable(EmbeddingError):
    """The embedder cannot work at all: model files missing, server unreachable, auth refused."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into fixed-size vectors; the vector index is created from `dimension`."""

    name: str
    model: str
    dimension: int

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order; raises EmbeddingError, never returns placeholders."""
        ...

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one search query, from the same model."""
        ...

    async def warm_up(self) -> None:
        """Loads and runs the model once, so that a broken setup shows at start-up."""
        ...

    async def close(self) -> None:
        """Releases threads, sessions and connections."""
        ...

    def health(self) -> dict[str, Any]:
        """{"state": "ok"|"degraded"|"down", "last_error": str|None, "last_success_at": iso}."""
        ...


@runtime_checkable
class ChainingEmbedder(Protocol):
    """An embedder that can run the caller's blocking work right after a query's embedding, on
    the thread that made it (the local model: recall searches the in-process index there)."""

    async def embed_query_then(
        self, text: str, then: Callable[[list[float]], T]
    ) -> tuple[list[float], T]:
        """The query's vector, and `then(vector)`; `then` must return its failures, not raise
        them (they are not the embedder's)."""
        ...


class HealthTracker:
    """Health derived from the outcomes of embed calls.

    ok: no failure since the last success (or no call yet); degraded: 1 or 2 failures in a row;
    down: DOWN_AFTER_FAILURES failures in a row, or any EmbedderUnavailable.
    """

    def __init__(self) -> None:
        self._failures = 0
        self._unavailable = False
        self._last_error: str | None = None
        self._last_success_at: datetime | None = None

    def success(self) -> None:
        """Records a successful call."""
        self._failures = 0
        self._unavailable = False
        self._last_success_at = datetime.now(UTC)

    def failure(self, error: BaseException) -> None:
        """Records a failed call."""
        self._failures += 1
        self._unavailable = isinstance(error, EmbedderUnavailable)
        self._last_error = f"{type(error).__name__}: {error}"

    @property
    def state(self) -> HealthState:
        """The current state."""
        if self._unavailable or self._failures >= DOWN_AFTER_FAILURES:
            return "down"
        return "degraded" if self._failures else "ok"

    def snapshot(self) -> dict[str, Any]:
        """The health dict embedders return."""
        success_at = self._last_success_at
        return {
            "state": self.state,
            "last_error": self._last_error,
            "last_success_at": success_at.isoformat() if success_at else None,
        }


async def tracked(health: HealthTracker, work: Awaitable[T], what: str) -> T:
    """Awaits `work`, records the outcome, and turns unexpected exceptions into EmbeddingError."""
    embedder = what.split()[0]  # "local embedding" -> local
    started = time.perf_counter()
    try:
        result = await work
    except EmbeddingError as exc:
        EMBED_ERRORS.labels(embedder).inc()
        health.failure(exc)
        raise
    except Exception as exc:
        EMBED_ERRORS.labels(embedder).inc()
        error = EmbeddingError(f"{what} failed: {exc!r}")
        health.failure(error)
        raise error from exc
    finally:
        EMBED_LATENCY.labels(embedder).observe(time.perf_counter() - started)
    health.success()
    return result


def text_list(texts: Sequence[str]) -> list[str]:
    """`texts` as a list; a bare string is refused, since it would embed one character at a time."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts; use embed_query() for a single text")
    return list(texts)


def check_vector(vector: Sequence[float], dimension: int) -> None:
    """Raises EmbeddingError unless `vector` has `dimension` finite values and a non-zero norm."""
    if len(vector) != dimension:
        raise EmbeddingError(f"expected a {dimension}-d vector, got {len(vector)}-d")
    if not all(math.isfinite(x) for x in vector):
        raise EmbeddingError("vector holds a NaN or infinite value")
    if not any(vector):
        raise EmbeddingError("vector is all zeros")
