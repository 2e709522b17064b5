"""`python -m app.worker`: a job worker process for scale-out, sharing the queue with the API.

It needs the shared servers (FALKORDB_URL and QDRANT_URL): the embedded FalkorDB server and the
Qdrant Edge shard belong to the one process that runs `make run`, whose own workers serve them.
"""

import asyncio
import logging
import signal
import sys
from pathlib import Path

from app.config import Settings, get_settings
from app.logs import configure_logging
from app.runtime import start_runtime
from app.storage.identity import StoreMismatch

log = logging.getLogger("app.worker")

ALIVE_FILE = Path("/tmp/engram-worker-alive")


def refuse_embedded(settings: Settings) -> str | None:
    """Why this configuration cannot run a separate worker, if it cannot."""
    if settings.falkordb_url is None or settings.qdrant_url is None:
        return (
            "A separate worker needs shared servers: set FALKORDB_URL and QDRANT_URL. "
            "On the embedded default, `make run` already runs workers in its own process "
            "(ENGRAM_WORKERS)."
        )
    return None


async def run(settings: Settings) -> None:
    runtime = await start_runtime(settings, with_keyring=False)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await runtime.start_workers(max(settings.workers, 1))
        ALIVE_FILE.touch()
        log.info("worker running (%d slots per job kind)", max(settings.workers, 1))
        await stop.wait()
    finally:
        ALIVE_FILE.unlink(missing_ok=True)
        await runtime.stop()


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_format)
    problem = refuse_embedded(settings)
    if problem:
        log.error(problem)
        sys.exit(2)
    try:
        asyncio.run(run(settings))
    except StoreMismatch as exc:
        log.error("refusing to start: %s", exc)
        sys.exit(2)


if __name__ == "__main__":
    main()
