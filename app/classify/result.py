"""What a classification returns, and the counters the classifiers keep."""

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from app.llm.errors import describe_error
from app.models import MemoryType

Method = Literal["explicit", "pattern", "llm", "llm_unmappable", "fallback"]


@dataclass(frozen=True)
class Classification:
    """A memory's type, how sure we are, and how it was decided.

    `needs_reclassification` marks a fallback guess, to classify again once an LLM answers.
    """

    type: MemoryType
    confidence: float
    method: Method
    needs_reclassification: bool = False


@dataclass
class ClassificationStats:
    """How memories were classified since start; shown on the status endpoint."""

    pattern_classifications: int = 0
    llm_attempts: int = 0
    llm_successes: int = 0
    llm_unmappable: int = 0
    fallbacks: int = 0
    last_error: str | None = None
    last_error_at: str | None = None

    def record_fallback(self, error: BaseException | None = None) -> None:
        """Counts a fallback, remembering the LLM error that caused it, if any."""
        self.fallbacks += 1
        if error is not None:
            self.last_error = describe_error(error)
            self.last_error_at = datetime.now(UTC).isoformat()

    def as_dict(self) -> dict[str, Any]:
        """The counters as a JSON-able dict."""
        return asdict(self)
