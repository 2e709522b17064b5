"""What Engram knows about its dependencies' health, from probes and from real operations."""

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from app.models import to_iso, utc_now

log = logging.getLogger(__name__)

MAX_BROKEN_ITEMS = 10_000  # items remembered as failing, per component


@dataclass
class ComponentHealth:
    ok: bool = True
    last_error: str | None = None
    last_error_at: str | None = None
    failures: int = 0
    # For a component made of many items (the artifacts' search indexes): the ones failing now.
    broken: set[tuple[str, ...]] = field(default_factory=set)


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

    def item_failed(
        self, component: str, item: tuple[str, ...], error: BaseException | str
    ) -> None:
        """One item of the component failed: the component is degraded until every failing
        item works again or is gone (the other items do not vouch for it)."""
        state = self.get(component)
        if len(state.broken) < MAX_BROKEN_ITEMS:
            state.broken.add(item)
        self.failed(component, error)

    def items_recovered(self, component: str, items: Iterable[tuple[str, ...]]) -> None:
        self._drop(component, set(items).__contains__)

    def items_gone(self, component: str, gone: Callable[[tuple[str, ...]], bool]) -> None:
        """Forgets the failing items that no longer exist (deleted, erased)."""
        self._drop(component, gone)

    def _drop(self, component: str, matches: Callable[[tuple[str, ...]], bool]) -> None:
        state = self.components.get(component)
        if state is None or not state.broken:
            return
        state.broken = {item for item in state.broken if not matches(item)}
        state.ok = not state.broken


def _describe(error: BaseException) -> str:
    """A short, safe description: the exception type and its first line."""
    first_line = str(error).splitlines()[0][:200] if str(error) else ""
    return f"{type(error).__name__}: {first_line}" if first_line else type(error).__name__
