"""`python -m app.worker`: a job worker process for scale-out, sharing the queue with the API.

It needs the shared servers (FALKORDB_URL and QDRANT_URL): the embedded FalkorDB server and the
Qdrant Edge shard belong to the one process that runs `make run`, whose own workers serve them.
"""

import asyncio
import logging
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from app.config import Settings, get_settings
from app.logs import configure_logging

if TYPE_CHECKING:
    from app.runtime import Runtime

log = logging.getLogger("app.worker")

# The worker's heartbeat: a file whose modification time is renewed every
# ENGRAM_WORKER_HEARTBEAT_S while the process's event loop runs and reaches the queue's server.
# `python -m app.worker --healthcheck` (the container's health check) is healthy while the last
# beat is less than three periods old.
HEARTBEAT_FILE = "worker-heartbeat"
STALE_AFTER_BEATS = 3


def refuse_embedded(settings: Settings) -> str | None:
    """Why this configuration cannot run a separate worker, if it cannot."""
    if settings.embedded_falkordb or settings.qdrant_url is None:
        return (
            "A separate worker needs shared servers: set FALKORDB_URL (or FALKORDB_SENTINELS) "
            "and QDRANT_URL. "
            "On the embedded default, `make run` already runs workers in its own process "
            "(ENGRAM_WORKERS)."
        )
    return None


async def run(settings: Settings) -> None:
    from app.runtime import start_runtime  # not loaded for --healthcheck, which must be quick

    runtime = await start_runtime(settings, with_keyring=False)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    beat_path = heartbeat_path(settings)
    try:
        await runtime.start_workers(max(settings.workers, 1))
        beat = heartbeat(runtime, beat_path, settings.worker_heartbeat_s)
        beating = asyncio.create_task(beat, name="worker-heartbeat")
        log.info("worker running (%d slots per job kind)", max(settings.workers, 1))
        await stop.wait()
        beating.cancel()
    finally:
        beat_path.unlink(missing_ok=True)
        await runtime.stop()


def heartbeat_path(settings: Settings) -> Path:
    return settings.data_dir / HEARTBEAT_FILE


async def heartbeat(runtime: "Runtime", path: Path, every_s: float) -> None:
    """Renews the heartbeat while the queue's server answers; a stuck loop or a lost server
    lets it go stale."""
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        try:
            await asyncio.wait_for(runtime.jobs.redis.ping(), timeout=every_s)
            path.touch()
        except Exception as exc:
            log.warning("worker heartbeat: the queue's server does not answer: %s", exc)
        await asyncio.sleep(every_s)


def healthy(settings: Settings, now: float | None = None) -> bool:
    """Whether the heartbeat is recent."""
    try:
        beat = heartbeat_path(settings).stat().st_mtime
    except FileNotFoundError:
        return False
    age = (now if now is not None else time.time()) - beat
    return age <= STALE_AFTER_BEATS * settings.worker_heartbeat_s


def main() -> None:
    settings = get_settings()
    if sys.argv[1:] == ["--healthcheck"]:
        sys.exit(0 if healthy(settings) else 1)
    configure_logging(settings.log_level, settings.log_format)
    problem = refuse_embedded(settings)
    if problem:
        log.error(problem)
        sys.exit(2)
    from app.storage.deployment import StoreMismatch

    try:
        asyncio.run(run(settings))
    except StoreMismatch as exc:
        log.error("refusing to start: %s", exc)
        sys.exit(2)


if __name__ == "__main__":
    main()
