"""One attempt at a time per job: a lease in Redis, renewed by the attempt's heartbeat.

saq's sweeper re-queues a job whose worker stopped heart-beating; a worker that is only slow
would then run it twice at once. The lease (SET NX PX, renewed by the heartbeat, released by
compare-and-delete) makes the second attempt wait. Limit: a worker whose event loop is blocked
(or whose process is paused) longer than `heartbeat_s` loses its lease without noticing until
its next await; a handler that must never overlap checks `ctx.holds_lease()` (fencing) right
before its effect, and keeps CPU work off the loop (`asyncio.to_thread`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Any, Protocol

import redis.asyncio as aioredis

log = logging.getLogger(__name__)

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


class LeaseLost(RuntimeError):
    """The attempt's lease expired (event loop blocked longer than heartbeat_s); retried."""


class Lease:
    def __init__(self, redis: aioredis.Redis, key: str, ttl_s: float) -> None:
        self.redis, self.key, self.ttl_ms = redis, key, int(ttl_s * 1000)
        self.token = uuid.uuid4().hex
        self.held = False
        self.lost = False
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    async def acquire(self) -> None:
        """Waits while another attempt of the same job holds it (bounded by saq's timeout)."""
        pause = 0.05
        while not await self.redis.set(self.key, self.token, nx=True, px=self.ttl_ms):
            await asyncio.sleep(pause)
            pause = min(pause * 2, self.ttl_ms / 4000)
        self.held = True

    async def owned(self) -> bool:
        return bool(await self.redis.get(self.key) == self.token.encode())

    async def renew(self) -> bool:
        return bool(await self._renew(keys=[self.key], args=[self.token, self.ttl_ms]))

    async def release(self) -> None:
        if self.held:
            self.held = False
            await self._release(keys=[self.key], args=[self.token])


class Beating(Protocol):
    """What the heartbeat touches: saq's Job (its `update()` refreshes the heartbeat)."""

    key: str

    async def update(self, **kwargs: Any) -> None: ...


class LeaseState(Protocol):
    held: bool
    lost: bool

    async def renew(self) -> bool: ...


async def heartbeat(
    job: Beating,
    lease: LeaseState,
    task: asyncio.Task[Any] | None,
    heartbeat_s: float,
    done: asyncio.Event,
) -> None:
    """Touches saq's job record (its heartbeat) and renews the lease every heartbeat_s / 3,
    until the attempt is `done`; cancels `task` when the lease was lost."""
    interval = max(heartbeat_s / 3, 0.05)
    while not done.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), interval)
        if done.is_set():
            return
        try:
            if lease.held and not await lease.renew():
                lease.lost = True
                if task is not None:
                    task.cancel()
                return
            await job.update()
        except asyncio.CancelledError:
            raise
        except Exception:  # a Redis blip: the next beat tries again
            log.exception("heartbeat of job %s failed", job.key)
