"""Per-user rate limits: a fixed one-minute window counted in Redis.

The counter lives in the FalkorDB server's Redis (shared by every API replica), one key per
user, action and minute, expiring with the window. The key names the user by a digest of their
id, not the id: an erased user's id is in no Redis key (docs/operations.md#erasure). Fixed
windows allow a burst of up to twice the rate across a window boundary; that is acceptable for
protecting the work behind them: /remember's extraction workers, and an erasure's rewrite of the
vector shard and the graph's append-only file (every user's data, so one user's erasures must
not come back to back).
"""

import hashlib
import time
from dataclasses import dataclass

from redis.asyncio import Redis

from app.errors import RateLimited

WINDOW_S = 60


@dataclass(frozen=True)
class Limited:
    """What a limit counts: its part of the Redis key, and the calls' name in the message."""

    key: str
    calls: str


REMEMBER = Limited("remember", "/remember calls")
ERASURES = Limited("erasures", "erasures")


async def check_rate(
    redis: Redis, namespace: str, limited: Limited, user_id: str, per_minute: int
) -> None:
    """Counts one call; raises RateLimited (429, Retry-After) once the user's window is full."""
    now = time.time()
    window = int(now // WINDOW_S)
    user = hashlib.sha256(user_id.encode()).hexdigest()[:32]
    key = f"{namespace}:ratelimit:{limited.key}:{user}:{window}"
    async with redis.pipeline(transaction=True) as pipe:
        pipe.incr(key)
        pipe.expire(key, WINDOW_S * 2)
        count, _ = await pipe.execute()
    if count > per_minute:
        retry_after = max(1, int((window + 1) * WINDOW_S - now) + 1)
        raise RateLimited(
            f"Too many {limited.calls}: at most {per_minute} per minute per user; "
            f"retry in {retry_after} s",
            retry_after,
        )
