"""Worker slots: N concurrent attempts per job kind in the current event loop.

They run inside the API process or in `python -m app.worker`. A runner never installs signal
handlers: saq's Worker would take SIGINT/SIGTERM over from uvicorn, and several Workers in one
loop would overwrite each other's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from saq import Job, Worker

from app.jobs.lease import Lease, LeaseLost, heartbeat
from app.jobs.queue import JobQueue
from app.jobs.saq_queue import FUNCTION
from app.jobs.spec import JobContext, JobKind


class _Worker(Worker):
    SIGNALS: list[Any] = []  # never touch the host's (uvicorn's) signal handlers


class JobsByKey(logging.Filter):
    """Names a job by its key in saq's log lines. saq prints a job as its repr, kwargs and all
    ("Error processing job …" at ERROR): a /remember job's conversation turns, a webhook
    event's ids. The log keeps ids only: the key, the status and the attempt."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(isinstance(a, Job) for a in record.args):
            record.args = tuple(_named(arg) for arg in record.args)
        return True


def _named(arg: Any) -> Any:
    if not isinstance(arg, Job):
        return arg
    return f"{arg.key} ({arg.status.value}, attempt {arg.attempts})"


def redact_saq_logs() -> None:
    """Installs JobsByKey on saq's logger (once: every runner shares it)."""
    saq_log = logging.getLogger("saq")
    if not any(isinstance(f, JobsByKey) for f in saq_log.filters):
        saq_log.addFilter(JobsByKey())


class JobRunner:
    """Runs `concurrency` slots per kind in the current event loop until `stop()`."""

    def __init__(
        self,
        jobs: JobQueue,
        *,
        concurrency: int = 4,
        kinds: Sequence[str] | None = None,
        deps: Any = None,
        sweep_s: int = 10,
        dequeue_timeout_s: float = 1.0,
        shutdown_grace_s: int = 10,
    ) -> None:
        self.jobs = jobs
        self.concurrency = concurrency
        self.kinds = list(kinds or jobs.kinds)
        self.deps = deps
        self.sweep_s = sweep_s
        self.dequeue_timeout_s = dequeue_timeout_s
        self.shutdown_grace_s = shutdown_grace_s
        self.id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self._workers: list[_Worker] = []
        self._tasks: list[asyncio.Task[Any]] = []

    async def start(self) -> None:
        redact_saq_logs()
        await self.jobs.connect()
        for kind in self.kinds:
            spec = self.jobs.kinds[kind]
            worker = _Worker(
                self.jobs.queues[kind],
                functions=[(FUNCTION, self._dispatcher(kind, spec))],
                id=f"{self.id}:{kind}",
                concurrency=spec.concurrency or self.concurrency,
                # saq turns these into SETEX seconds: integers only
                timers={"sweep": int(self.sweep_s), "schedule": 1, "abort": 1, "worker_info": 10},
                dequeue_timeout=self.dequeue_timeout_s,
                shutdown_grace_period_s=self.shutdown_grace_s,
            )
            self._workers.append(worker)
            self._tasks.append(asyncio.create_task(worker.start(), name=f"jobs:{kind}"))

    async def stop(self) -> None:
        """In-flight attempts get `shutdown_grace_s` to finish, then are cancelled and re-queued."""
        for worker in self._workers:
            # saq's stop() also waits for its upkeep loops, which notice the stop only after
            # their next sleep (sweep_s, 10 s for worker_info): end them now. saq names only
            # the job slots "process"; an upkeep loop returns quietly when cancelled.
            worker.event.set()
            for task in list(worker.tasks):
                if task.get_name() != "process":
                    task.cancel()
        await asyncio.gather(*(w.stop() for w in self._workers), return_exceptions=True)
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._workers, self._tasks = [], []

    def _dispatcher(self, kind: str, spec: JobKind) -> Callable[..., Awaitable[Any]]:
        jobs = self.jobs

        async def run(ctx: dict[str, Any], *, ids: list[str], payload: dict[str, Any]) -> Any:
            job: Job = ctx["job"]
            lease = Lease(jobs.redis, jobs.keys.lease(job.key), spec.heartbeat_s)
            done = asyncio.Event()
            beat = asyncio.create_task(
                heartbeat(job, lease, asyncio.current_task(), spec.heartbeat_s, done)
            )
            try:
                await lease.acquire()
                context = JobContext(
                    job.key,
                    kind,
                    ids,
                    payload,
                    job.attempts,
                    job.retries,
                    jobs.redis,
                    self.deps,
                    lease,
                )
                return await spec.handler(context)
            except asyncio.CancelledError:
                if lease.lost:
                    raise LeaseLost(f"lease of {job.key} expired while it ran") from None
                raise
            except Exception as exc:
                job.meta["last_error"] = f"{type(exc).__name__}: {exc}"[:500]
                raise
            finally:
                # Stop the beat by flag, not only by cancellation: a library that swallows one
                # CancelledError (seen under load) would otherwise leave an orphan heartbeat
                # renewing the lease forever, and every later attempt would wait for it.
                done.set()
                with contextlib.suppress(Exception):
                    await lease.release()  # held=False first: a stray beat cannot renew it
                beat.cancel()
                await asyncio.wait([beat], timeout=spec.heartbeat_s)

        return run
