"""Per-user rate limits: a fixed one-minute window counted in Redis.

The counter lives in the FalkorDB server's Redis (shared by every API replica), one key per
user, action and minute, expiring with the window. Fixed windows allow a burst of up to twice
the rate across a window boundary; that is acceptable for protecting the work behind them:
/remember's extraction workers, and an erasure's rewrite of the vector shard and the graph's
append-only file (every user's data, so one user's erasures must not come back to back).
"""

import time

from redis.asyncio import Redis

from app.errors import RateLimited

WINDOW_S = 60


async def check_rate(
    redis: Redis, namespace: str, action: str, user_id: str, per_minute: int
) -> None:
    """Counts one `action` call; raises RateLimited (429, Retry-After) once the user's window
    is full. `action` names the calls in the message ("/remember calls", "erasures")."""
    now = time.time()
    window = int(now // WINDOW_S)
    key = f"{namespace}:ratelimit:{_key_part(action)}:{user_id}:{window}"
    async with redis.pipeline(transaction=True) as pipe:
        pipe.incr(key)
        pipe.expire(key, WINDOW_S * 2)
        count, _ = await pipe.execute()
    if count > per_minute:
        retry_after = max(1, int((window + 1) * WINDOW_S - now) + 1)
        raise RateLimited(
            f"Too many {action}: at most {per_minute} per minute per user; "
            f"retry in {retry_after} s",
            retry_after,
        )


def _key_part(action: str) -> str:
    # "/remember calls" keeps the key it always had ("remember"), so a window survives an upgrade.
    return action.split()[0].strip("/")
