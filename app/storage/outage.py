"""A lost store is logged twice, when it is lost and when it is back, never once per attempt.

While FalkorDB is down every request, job and housekeeping loop fails on it: saq's upkeep loops
alone log a traceback several times a second. `QuietStoreFailures` drops such records (an
exception that says a store could not be reached) from the libraries' loggers and counts them;
the store watch (app/ops/store_watch.py) logs the outage itself, with these counts when it ends.
"""

import logging
from dataclasses import dataclass

import redis.exceptions

from app.errors import StoreUnavailable

# What says a store could not be reached (redis-py's BusyLoadingError, a server still loading
# its data, is a ConnectionError).
STORE_FAILURES: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    ConnectionError,
    TimeoutError,
    StoreUnavailable,
)
# Loggers of libraries that log every failed attempt with its traceback.
NOISY_LOGGERS = ("saq", "asyncio")


def is_store_failure(exc: BaseException | None) -> bool:
    """Whether `exc` (or one it groups or was raised from) says a store could not be reached."""
    if exc is None:
        return False
    if isinstance(exc, BaseExceptionGroup):
        return any(is_store_failure(inner) for inner in exc.exceptions)
    return isinstance(exc, STORE_FAILURES) or isinstance(exc.__cause__, STORE_FAILURES)


@dataclass
class OutageCounts:
    """What failed on an unreachable store since the counts were last taken."""

    refused_requests: int = 0  # answered 503 store_unavailable
    quiet_errors: int = 0  # library log records dropped (job attempts, upkeep loops)

    def take(self) -> "OutageCounts":
        taken = OutageCounts(self.refused_requests, self.quiet_errors)
        self.refused_requests = self.quiet_errors = 0
        return taken


COUNTS = OutageCounts()


class QuietStoreFailures(logging.Filter):
    """Drops a log record whose exception is a store failure, counting it."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if is_store_failure(exc):
            COUNTS.quiet_errors += 1
            return False
        return True


def quiet_library_loggers() -> None:
    """Installs the filter on the noisy libraries' loggers (once)."""
    for name in NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, QuietStoreFailures) for f in logger.filters):
            logger.addFilter(QuietStoreFailures())
