"""A separate worker process for the queue tests, the way `python -m app.worker` will run.

Usage: python tests/jobs/worker_proc.py REDIS_URL NAMESPACE CONCURRENCY [KIND ...]
"""

import asyncio
import logging
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.jobs.queue import JobQueue  # noqa: E402
from app.jobs.runner import JobRunner  # noqa: E402
from tests.jobs.handlers import make_kinds  # noqa: E402


async def main(url: str, namespace: str, concurrency: int, kinds: list[str]) -> None:
    jobs = JobQueue(url, make_kinds(), namespace=namespace, sweep_abort_wait_s=0.2)
    runner = JobRunner(
        jobs,
        concurrency=concurrency,
        kinds=kinds or None,
        deps=namespace,
        sweep_s=1,
        shutdown_grace_s=2,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await runner.start()
    try:
        await stop.wait()
    finally:
        await runner.stop()
        await jobs.close()


if __name__ == "__main__":
    logging.basicConfig(
        level=os.environ.get("JOBS_LOG_LEVEL", "WARNING"),
        format="%(asctime)s %(process)d %(name)s %(message)s",
    )
    url, namespace, concurrency, *kinds = sys.argv[1:]
    asyncio.run(main(url, namespace, int(concurrency), kinds))
