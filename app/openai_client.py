"""The `openai` SDK client that the chat client and the remote embedder share.

The SDK brings the retries (429, 408, 409, 5xx, timeouts and lost connections, with exponential
backoff and jitter, honouring the server's Retry-After), the timeouts and the connection pool.
What Engram adds, through the HTTP client's event hooks: a count of the HTTP attempts (so that
retries show in status pages), and answers the caller says must not be retried (a 429 that
means the quota is used up is not worth retrying for a while).
"""

from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from openai import AsyncOpenAI, DefaultAsyncHttpxClient

# The SDK refuses to run without a key; servers without authentication (a local Ollama, vLLM,
# llama.cpp) ignore the one it sends.
NO_KEY = "none"

NoRetry = Callable[[httpx2.Response], Awaitable[bool]]


class AttemptCounter:
    """HTTP attempts sent: each logical call sends one, and one more per retry."""

    def __init__(self) -> None:
        self.attempts = 0

    async def on_request(self, request: httpx2.Request) -> None:
        self.attempts += 1


def check_base_url(base_url: str) -> None:
    """`base_url` is the API root including its version, e.g. "https://api.openai.com/v1"."""
    if not base_url.startswith(("http://", "https://")):
        raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")


def openai_client(
    *,
    base_url: str,
    api_key: str | None,
    timeout_s: float,
    max_retries: int,
    attempts: AttemptCounter | None = None,
    no_retry: NoRetry | None = None,
) -> AsyncOpenAI:
    """An AsyncOpenAI for `base_url` (a trailing slash is ignored; nothing is guessed)."""
    check_base_url(base_url)

    async def mark_no_retry(response: httpx2.Response) -> None:
        if no_retry is not None and await no_retry(response):
            response.headers["x-should-retry"] = "false"  # the SDK's header to stop its retries

    hooks: dict[str, list[Callable[..., Any]]] = {
        "request": [attempts.on_request] if attempts else [],
        "response": [mark_no_retry] if no_retry else [],
    }
    http = DefaultAsyncHttpxClient(timeout=timeout_s, event_hooks=hooks)
    return AsyncOpenAI(
        base_url=base_url.rstrip("/"),
        api_key=api_key or NO_KEY,
        timeout=timeout_s,
        max_retries=max_retries,
        http_client=http,
    )
