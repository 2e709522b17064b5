"""When a failed request is sent again, and after how long.

Sent again whatever the request: a connection that was never made, 429 (refused before any
work) and 503 (a store is down: nothing was written). Sent again only when that is safe (reads,
and writes with an Idempotency-Key, which the service answers once): 500, 502, 504 and a
connection that broke after the request went out.
"""

import random
from dataclasses import dataclass

import httpx

from engram_client.errors import retry_after_s

NOTHING_DONE = frozenset({429, 503})
MAYBE_DONE = frozenset({500, 502, 504})
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0

    def wait_s(self, attempt: int, retry_after: float | None) -> float:
        """Retry-After when the service gave one (capped), else exponential with full jitter."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_backoff_s)
        return random.uniform(0, min(self.backoff_s * 2**attempt, self.max_backoff_s))

    def after_answer(self, response: httpx.Response, safe: bool, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None to keep this answer."""
        if attempt >= self.max_retries:
            return None
        status = response.status_code
        if status in NOTHING_DONE or (safe and status in MAYBE_DONE):
            return self.wait_s(attempt, retry_after_s(response))
        return None

    def after_error(self, error: httpx.TransportError, safe: bool, attempt: int) -> float | None:
        if attempt >= self.max_retries:
            return None
        if isinstance(error, NOT_SENT) or safe:
            return self.wait_s(attempt, None)
        return None
