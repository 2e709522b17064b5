"""Why an LLM call gave no answer. Every error is an LLMUnavailable, so callers need one except.

LLMUnavailable            the caller falls back to rules
  CircuitOpen             a quota error stopped LLM calls for the cooldown; no request was sent
  BudgetExhausted         the job's or the hour's call budget is spent; no request was sent
  LLMCallFailed           failed after retries, refused by the server, or no JSON object
"""


class LLMUnavailable(Exception):
    """The LLM gave no usable answer; the caller falls back to rules."""


class CircuitOpen(LLMUnavailable):
    """A quota error opened the circuit breaker; calls are refused until the cooldown ends."""


class BudgetExhausted(LLMUnavailable):
    """The per-job or per-hour call budget is spent."""


class LLMCallFailed(LLMUnavailable):
    """The call failed after its retries, on a non-retryable error, or with an unusable answer."""


def describe_error(error: BaseException) -> str:
    """An error as shown in /enrichment/status: its class and its message."""
    return f"{type(error).__name__}: {error}"
