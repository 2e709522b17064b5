"""Engram's error envelope as exceptions: `{"status": "error", "code", "error", "message"}`.

Every answer that is not a success raises an `EngramError` subclass chosen by its HTTP status;
`code` (the HTTP status), `error` (the kind, e.g. ``not_found``) and `message` are the
envelope's own fields, so what the service said reaches the caller unchanged.
"""

from typing import Any

import httpx


class EngramError(Exception):
    """Any error answered by Engram, or met on the way to it."""

    def __init__(
        self,
        message: str,
        *,
        code: int = 0,
        error: str = "client_error",
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.error = error
        self.request_id = request_id

    def __str__(self) -> str:
        return f"{self.code} {self.error}: {self.message}" if self.code else self.message


class BadRequestError(EngramError):
    """400: the input is invalid; the message names the field."""


class AuthenticationError(EngramError):
    """401: no key, or a key Engram does not know."""


class PermissionDeniedError(EngramError):
    """403: the key may not do this (an agent-bound key on /me, a user key on /admin…)."""


class NotFoundError(EngramError):
    """404: no such memory, job or artifact in the caller's scope."""


class ConflictError(EngramError):
    """409: a stale `expected_version`, or an Idempotency-Key reused for another request."""


class PayloadTooLargeError(EngramError):
    """413: over a size limit, which the message names."""


class UnsupportedMediaTypeError(EngramError):
    """415: an artifact type off the allow-list."""


class RateLimitError(EngramError):
    """429: too many requests; `retry_after` seconds, from the Retry-After header."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class ServiceUnavailableError(EngramError):
    """503: a store is down or the feature is switched off."""


class ServerError(EngramError):
    """Any other 5xx."""


class EngramConnectionError(EngramError):
    """Engram could not be reached, or the connection broke before an answer (after retries)."""


class JobFailedError(EngramError):
    """A /remember job ended without finishing (dead or aborted); `job` is its last state."""

    def __init__(self, message: str, *, job: Any) -> None:
        super().__init__(message, error="job_failed")
        self.job = job


class JobTimeoutError(EngramError):
    """`remember(wait=True)` gave up waiting; the job carries on in the service."""

    def __init__(self, message: str, *, job: Any) -> None:
        super().__init__(message, error="job_timeout")
        self.job = job


BY_STATUS: dict[int, type[EngramError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def retry_after_s(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: rare from Engram, and the backoff covers it


def error_from(response: httpx.Response) -> EngramError:
    """The exception for a failed answer, from its envelope (or its status when there is none)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    envelope = body if isinstance(body, dict) else {}
    message = str(envelope.get("message") or response.reason_phrase or "request failed")
    kind = str(envelope.get("error") or "http_error")
    status = response.status_code
    cls = BY_STATUS.get(status, ServerError if status >= 500 else EngramError)
    request_id = response.headers.get("X-Request-Id")
    if cls is RateLimitError:
        return RateLimitError(
            message,
            retry_after=retry_after_s(response),
            code=status,
            error=kind,
            request_id=request_id,
        )
    return cls(message, code=status, error=kind, request_id=request_id)
