"""What stands between a caller and a request: the circuit breaker and the call budgets.

All three use an injected monotonic clock, so tests can move time forward.
"""

from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from app.llm.errors import BudgetExhausted, CircuitOpen

Clock = Callable[[], float]
HOUR_S = 3600.0


class CallBudget:
    """The LLM calls one job may make; `spend()` once per logical call (retries are free)."""

    def __init__(self, max_calls: int) -> None:
        if max_calls < 0:
            raise ValueError("max_calls must be >= 0")
        self.max_calls = max_calls
        self.used = 0

    @property
    def remaining(self) -> int:
        """Calls left."""
        return self.max_calls - self.used

    def spend(self) -> None:
        """Counts one call; raises BudgetExhausted when none is left."""
        if self.used >= self.max_calls:
            raise BudgetExhausted(f"this job's budget of {self.max_calls} LLM calls is spent")
        self.used += 1


class HourlyLimit:
    """At most `limit` calls in any rolling hour, across the process (0 = no calls)."""

    def __init__(self, limit: int, clock: Clock) -> None:
        if limit < 0:
            raise ValueError("calls_per_hour must be >= 0")
        self.limit = limit
        self._clock = clock
        self._times: deque[float] = deque()

    @property
    def used(self) -> int:
        """Calls made in the last hour."""
        self._forget_old()
        return len(self._times)

    def check(self) -> None:
        """Raises BudgetExhausted if the hour's calls are used up."""
        if self.used >= self.limit:
            raise BudgetExhausted(
                f"the limit of {self.limit} LLM calls per hour is reached; "
                f"the next call is allowed in {self._wait_s():.0f}s"
            )

    def record(self) -> None:
        """Counts one call now."""
        self._times.append(self._clock())

    def _forget_old(self) -> None:
        cutoff = self._clock() - HOUR_S
        while self._times and self._times[0] <= cutoff:
            self._times.popleft()

    def _wait_s(self) -> float:
        if not self._times:
            return HOUR_S
        return max(0.0, self._times[0] + HOUR_S - self._clock())


class CircuitBreaker:
    """Opened by a quota error; refuses calls for `cooldown_s`, then lets one probe call through.

    The probe's outcome decides: `close()` on an answer, `trip()` again on a failing server.
    While the probe is in flight, other calls are still refused.
    """

    def __init__(self, cooldown_s: float, clock: Clock) -> None:
        self.cooldown_s = cooldown_s
        self.opened_count = 0
        self._clock = clock
        self._opened_at: float | None = None
        self._opened_wall: datetime | None = None
        self._probing = False

    @property
    def state(self) -> str:
        """closed, open (calls refused) or half_open (the next call is the probe)."""
        if self._opened_at is None:
            return "closed"
        if self._probing or self.reopens_in_s() > 0:
            return "open"
        return "half_open"

    def reopens_in_s(self) -> float:
        """Seconds until a probe call is allowed; 0 when closed or the cooldown is over."""
        if self._opened_at is None:
            return 0.0
        return max(0.0, self._opened_at + self.cooldown_s - self._clock())

    def admit(self) -> bool:
        """Raises CircuitOpen if calls are refused; True if this call is the half-open probe."""
        state = self.state
        if state == "closed":
            return False
        if state == "open":
            raise CircuitOpen(
                f"the LLM circuit is open after a quota error; retry in {self.reopens_in_s():.0f}s"
            )
        self._probing = True
        return True

    def end_probe(self) -> None:
        """The probe finished (or was cancelled); a later call may probe if still not closed."""
        self._probing = False

    def trip(self) -> None:
        """Opens the circuit now, for a full cooldown."""
        self._opened_at = self._clock()
        self._opened_wall = datetime.now(UTC)
        self._probing = False
        self.opened_count += 1

    def close(self) -> None:
        """Lets calls through again."""
        self._opened_at = self._opened_wall = None
        self._probing = False

    def snapshot(self) -> dict[str, Any]:
        """The JSON-able state for status()."""
        opened = self._opened_wall
        return {
            "open": self.state == "open",
            "state": self.state,
            "opened_at": opened.isoformat() if opened else None,
            "reopens_in_s": round(self.reopens_in_s(), 3),
            "opened_count": self.opened_count,
        }
