"""The heartbeat of an attempt ends when the attempt does, even if a cancellation is swallowed.

Under load, one cancellation of a heartbeat was swallowed inside a client library; the orphan
heartbeat then renewed the job's lease forever and every later attempt waited for it.
"""

import asyncio
import contextlib
from types import SimpleNamespace

from app.jobs.lease import heartbeat


class SwallowingJob:
    """Stands in for saq's Job: its update() swallows CancelledError, as the library did."""

    key = "embed:u/1"

    def __init__(self) -> None:
        self.updates = 0

    async def update(self) -> None:
        self.updates += 1
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.5)


async def test_heartbeat_stops_when_the_attempt_is_done_despite_a_swallowed_cancel():
    job, lease, done = SwallowingJob(), SimpleNamespace(held=False), asyncio.Event()
    task = asyncio.create_task(heartbeat(job, lease, None, 0.03, done))
    await asyncio.sleep(0.2)  # inside update()
    task.cancel()
    await asyncio.sleep(0.1)
    assert not task.done()  # the cancellation was swallowed: cancel() alone cannot stop it
    done.set()
    await asyncio.wait_for(task, 2)
    updates = job.updates
    await asyncio.sleep(0.2)
    assert job.updates == updates  # no beat after the attempt ended
