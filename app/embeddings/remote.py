"""Embeddings from any OpenAI-compatible server, through the `openai` SDK (app.openai_client).

`base_url` is the API root including its version, as in the OpenAI SDK, e.g.
"https://api.openai.com/v1" or "http://127.0.0.1:11434/v1"; a trailing slash is ignored and
requests go to `base_url + "/embeddings"`. Nothing is appended or guessed.
"""

from collections.abc import Sequence
from typing import Any

import httpx2
import openai

from app.embeddings.base import (
    EmbedderUnavailable,
    EmbeddingError,
    HealthTracker,
    check_vector,
    text_list,
    tracked,
)
from app.openai_client import openai_client

AUTH_STATUSES = frozenset({401, 403})
ERROR_BODY_CHARS = 300


def status_error(response: httpx2.Response) -> EmbeddingError:
    """The error for a non-2xx response, quoting the start of its body."""
    message = f"HTTP {response.status_code} from {response.url}: {response.text[:ERROR_BODY_CHARS]}"
    if response.status_code in AUTH_STATUSES:
        return EmbedderUnavailable(message)
    return EmbeddingError(message)


def as_floats(values: Any) -> list[float]:
    """`values` as a list of floats; raises EmbeddingError if it is not a list of numbers."""
    if not isinstance(values, list) or not all(
        isinstance(x, int | float) and not isinstance(x, bool) for x in values
    ):
        raise EmbeddingError("an embedding is not a list of numbers")
    return [float(x) for x in values]


def parse_embeddings(body: Any, count: int, dimension: int) -> list[list[float]]:
    """The vectors of an /embeddings response, ordered by their `index`, each checked."""
    try:
        items = sorted(body["data"], key=lambda item: item["index"])
        indexes = [item["index"] for item in items]
        vectors = [as_floats(item["embedding"]) for item in items]
    except (KeyError, TypeError) as exc:
        raise EmbeddingError(f"malformed embeddings response: {exc!r}") from exc
    if indexes != list(range(count)):
        raise EmbeddingError(f"expected indexes 0..{count - 1}, got {indexes[:10]}")
    for vector in vectors:
        check_vector(vector, dimension)
    return vectors


class OpenAIEmbedder:
    """POSTs batches to `{base_url}/embeddings`, retrying 429, 5xx, timeouts and lost connections.

    Each batch gets up to `1 + max_retries` attempts, with the SDK's backoff and jitter.
    Every returned vector must have `dimension` values; `dimensions` is sent to the server
    only when `send_dimensions` is set (not every compatible server accepts it).
    """

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dimension: int,
        api_key: str | None = None,
        send_dimensions: bool = False,
        batch_size: int = 64,
        timeout: float = 30.0,
        max_retries: int = 3,
    ) -> None:
        if dimension < 1 or batch_size < 1 or max_retries < 0 or timeout <= 0:
            raise ValueError("dimension, batch_size and timeout must be positive, max_retries >= 0")
        self.model = model
        self.dimension = dimension
        self.url = base_url.rstrip("/") + "/embeddings"
        self._send_dimensions = send_dimensions
        self._batch_size = batch_size
        self._timeout = timeout
        self._sdk = openai_client(
            base_url=base_url, api_key=api_key, timeout_s=timeout, max_retries=max_retries
        )
        self._closed = False
        self._health = HealthTracker()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order; batches are sent one after another."""
        items = text_list(texts)
        if not items:
            return []
        return await tracked(self._health, self._embed(items), "remote embedding")

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return (await self.embed([text]))[0]

    async def warm_up(self) -> None:
        """One embedding call, so that a broken setup shows at start-up."""
        await self.embed(["warm up"])

    async def close(self) -> None:
        """Closes the HTTP connections."""
        if not self._closed:
            self._closed = True
            await self._sdk.close()

    def health(self) -> dict[str, Any]:
        """State from the outcomes of recent calls."""
        return self._health.snapshot()

    async def _embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = texts[start : start + self._batch_size]
            body = await self._post(batch)
            vectors.extend(parse_embeddings(body, len(batch), self.dimension))
        return vectors

    async def _post(self, batch: list[str]) -> Any:
        """One /embeddings request through the SDK (which retries); the answer as plain data."""
        if self._closed:
            raise EmbedderUnavailable("the remote embedder is closed")
        extra: dict[str, Any] = {"dimensions": self.dimension} if self._send_dimensions else {}
        try:
            response = await self._sdk.embeddings.create(
                model=self.model, input=batch, encoding_format="float", **extra
            )
        except openai.APITimeoutError as exc:
            raise EmbeddingError(f"{self.url} timed out ({self._timeout}s): {exc!r}") from exc
        except openai.APIConnectionError as exc:
            if isinstance(exc.__cause__, httpx2.ConnectError):
                raise EmbedderUnavailable(f"cannot connect to {self.url}: {exc!r}") from exc
            raise EmbeddingError(f"request to {self.url} failed: {exc!r}") from exc
        except openai.APIStatusError as exc:
            raise status_error(exc.response) from exc
        except openai.APIError as exc:
            raise EmbeddingError(f"{self.url} returned an unusable answer: {exc}") from exc
        return response.model_dump()
