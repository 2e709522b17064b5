"""Job kinds for the queue tests, shared by the test process and the worker processes.

Every handler is idempotent the way Engram's must be: the effect (`SADD {ns}:done id`) happens
once however often the handler starts; `{ns}:effects` counts effects, `{ns}:starts` counts starts.
`ctx.deps` is the test's namespace, so that tests sharing one Redis never see each other's keys.
"""

import asyncio
import os
import time

from app.jobs.lease import LeaseLost
from app.jobs.spec import JobContext, JobKind, RetryPolicy

# check-and-apply in one step, as a real handler must (a kill between two calls would count
# the effect as done but not apply it, or apply it twice)
_EFFECT = """
if redis.call('sadd', KEYS[1], ARGV[1]) == 1 then return redis.call('incr', KEYS[2]) end
return 0
"""


async def _effect(ctx: JobContext) -> None:
    ns = ctx.deps
    await ctx.redis.eval(_EFFECT, 2, f"{ns}:done", f"{ns}:effects", ctx.job_id)


async def slow(ctx: JobContext) -> dict:
    """Sleeps payload["sleep"] seconds between its start and its effect (test a)."""
    ns, r = ctx.deps, ctx.redis
    await r.incr(f"{ns}:starts")
    await r.rpush(f"{ns}:started:{ctx.job_id}", f"{time.time():.3f} {os.getpid()}")
    await asyncio.sleep(ctx.payload.get("sleep", 1.0))
    assert await ctx.holds_lease()
    await _effect(ctx)
    return {"pid": os.getpid(), "attempt": ctx.attempt}


async def fenced(ctx: JobContext) -> None:
    """Checks that it still owns the job right before its effect (test f)."""
    ns, r = ctx.deps, ctx.redis
    await r.rpush(f"{ns}:started:{ctx.job_id}", f"{time.time():.3f} {os.getpid()}")
    await asyncio.sleep(ctx.payload.get("sleep", 1.0))
    if not await ctx.holds_lease():
        await r.incr(f"{ns}:fenced")
        raise LeaseLost(f"{ctx.job_id} was taken over while this attempt slept")
    await _effect(ctx)
    await r.set(f"{ns}:effect_pid", os.getpid())


async def bulk(ctx: JobContext) -> None:
    """Counts concurrent runs of the same job exactly (INCR/DECR) and logs its interval (b, c)."""
    ns, r = ctx.deps, ctx.redis
    await r.incr(f"{ns}:starts")
    if await r.incr(f"{ns}:running:{ctx.job_id}") > 1:
        await r.incr(f"{ns}:overlaps")
    start = time.time()
    try:
        await asyncio.sleep(ctx.payload.get("sleep", 0.005))
        await _effect(ctx)
    finally:
        await r.decr(f"{ns}:running:{ctx.job_id}")
        await r.rpush(f"{ns}:runs:{ctx.job_id}", f"{start:.6f} {time.time():.6f} {os.getpid()}")


async def boom(ctx: JobContext) -> None:
    """Always fails; logs when each attempt started (test d)."""
    await ctx.redis.rpush(f"{ctx.deps}:boom:{ctx.job_id}", f"{time.time():.3f}")
    raise ValueError(f"nope {ctx.attempt}")


async def gate(ctx: JobContext) -> dict:
    """Runs until `{ns}:gate` exists (test e)."""
    ns, r = ctx.deps, ctx.redis
    runs = await r.incr(f"{ns}:runs:{ctx.job_id}")
    while not await r.exists(f"{ns}:gate"):
        await asyncio.sleep(0.02)
    return {"runs": runs}


def make_kinds(heartbeat_s: int = 1) -> dict[str, JobKind]:
    """The explicit registry: kind -> handler and its policies (small timings for tests)."""
    fast = RetryPolicy(max_attempts=5, base_delay_s=1, max_delay_s=2, jitter=0)
    return {
        "slow": JobKind(slow, retry=fast, timeout_s=30, heartbeat_s=heartbeat_s),
        "bulk": JobKind(bulk, retry=fast, timeout_s=30, heartbeat_s=heartbeat_s),
        "boom": JobKind(
            boom,
            retry=RetryPolicy(max_attempts=4, base_delay_s=1, max_delay_s=3, jitter=0),
            timeout_s=30,
            heartbeat_s=heartbeat_s,
        ),
        "gate": JobKind(gate, retry=fast, timeout_s=30, heartbeat_s=heartbeat_s),
        "fenced": JobKind(fenced, retry=fast, timeout_s=30, heartbeat_s=heartbeat_s),
    }
