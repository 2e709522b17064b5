"""Engram's Python client: `Engram` (sync) and `AsyncEngram` (async), typed, with retries.

from engram_client import Engram

with Engram("http://127.0.0.1:8001", api_key="...") as engram:
    engram.store("Alice prefers green tea", tags=["drinks"])
    for hit in engram.recall("what does Alice drink?").results:
        print(hit.score, hit.memory.content)
"""

__version__ = "0.1.0"

from engram_client.async_client import AsyncEngram  # noqa: E402
from engram_client.client import Engram  # noqa: E402
from engram_client.errors import (  # noqa: E402
    AuthenticationError,
    BadRequestError,
    ConflictError,
    EngramConnectionError,
    EngramError,
    JobFailedError,
    JobTimeoutError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    UnsupportedMediaTypeError,
)

__all__ = [
    "AsyncEngram",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Engram",
    "EngramConnectionError",
    "EngramError",
    "JobFailedError",
    "JobTimeoutError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "ServiceUnavailableError",
    "UnsupportedMediaTypeError",
    "__version__",
]
