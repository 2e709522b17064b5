"""How /remember extracted facts since start; shown on GET /enrichment/status under `remember`."""

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any


@dataclass
class ExtractionStats:
    rule_extractions: int = 0
    llm_attempts: int = 0
    llm_successes: int = 0
    llm_invalid_answers: int = 0
    fallbacks: int = 0
    last_error: str | None = None
    last_error_at: str | None = None

    def record_fallback(self, error: BaseException) -> None:
        """Counts a job that fell back to the rules, with the LLM error or invalid answer."""
        self.fallbacks += 1
        self.last_error = f"{type(error).__name__}: {error}"
        self.last_error_at = datetime.now(UTC).isoformat()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
