"""What Engram knows about its dependencies' health, from probes and from real operations."""

import logging
from dataclasses import dataclass, field

from app.models import to_iso, utc_now

log = logging.getLogger(__name__)


@dataclass
class ComponentHealth:
    ok: bool = True
    last_error: str | None = None
    last_error_at: str | None = None
    failures: int = 0


@dataclass
class HealthBoard:
    """Operation outcomes per component; a failure makes /health degraded until a success."""

    components: dict[str, ComponentHealth] = field(default_factory=dict)

    def failed(self, component: str, error: BaseException | str) -> None:
        state = self.components.setdefault(component, ComponentHealth())
        state.ok = False
        state.last_error = error if isinstance(error, str) else _describe(error)
        state.last_error_at = to_iso(utc_now())
        state.failures += 1

    def succeeded(self, component: str) -> None:
        state = self.components.setdefault(component, ComponentHealth())
        state.ok = True

    def get(self, component: str) -> ComponentHealth:
        return self.components.setdefault(component, ComponentHealth())


def _describe(error: BaseException) -> str:
    """A short, safe description: the exception type and its first line."""
    first_line = str(error).splitlines()[0][:200] if str(error) else ""
    return f"{type(error).__name__}: {first_line}" if first_line else type(error).__name__
