"""Retry rules shared by the OpenAI-compatible clients (embeddings and chat)."""

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx

T = TypeVar("T")


class Retryable(Exception):
    """A failed attempt worth retrying; `retry_after` is the wait the server asked for, if any."""

    retry_after: float | None = None


def is_retryable_status(status: int) -> bool:
    """429 and 5xx are worth retrying; other 4xx will fail again."""
    return status == 429 or status >= 500


def retry_after_seconds(response: httpx.Response) -> float | None:
    """The Retry-After header in seconds, if it is a number."""
    try:
        return max(0.0, float(response.headers["retry-after"]))
    except (KeyError, ValueError):
        return None


def backoff_delay(attempt: int, base_s: float, max_s: float, retry_after: float | None) -> float:
    """Exponential backoff with jitter, at least the server's Retry-After (capped at max_s)."""
    delay = min(max_s, base_s * 2**attempt)
    # Jitter spreads out clients that failed together, so they do not retry together.
    delay *= random.uniform(0.5, 1.0)
    if retry_after is not None:
        delay = max(delay, min(retry_after, max_s))
    return delay


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    max_retries: int,
    base_s: float,
    max_s: float,
    on_retry: Callable[[], None] | None = None,
) -> T:
    """Runs `attempt` until it returns; a Retryable is retried up to `max_retries` times with
    backoff_delay between tries, then raised."""
    tries = 0
    while True:
        try:
            return await attempt()
        except Retryable as exc:
            if tries >= max_retries:
                raise
            if on_retry is not None:
                on_retry()
            await asyncio.sleep(backoff_delay(tries, base_s, max_s, exc.retry_after))
        tries += 1
