"""One OpenAI-compatible chat client for every LLM use in Engram: JSON answers, behind guards.

It is the `openai` SDK's AsyncOpenAI (see app.openai_client) with Engram's guards around it.
`base_url` is the API root including its version, as for the remote embedder
(e.g. "https://api.openai.com/v1"); requests go to `base_url + "/chat/completions"`.

Before any request, a call must pass, in this order: the circuit breaker (opened by a quota
error, see guards.CircuitBreaker), the rolling per-hour limit, and the job's CallBudget.
Budgets count logical calls (one chat_json), not HTTP attempts: retries and the switch to
json_object mode cost nothing, since a failed attempt is not what a budget is meant to ration.

Each call gets up to `1 + max_retries` attempts on 429 (not quota), 5xx, timeouts and lost
connections, with the SDK's exponential backoff and jitter; other 4xx fail at once. Answers are
asked for with response_format json_schema (strict); a server that rejects it is switched, for
the life of this client, to json_object with the schema in the system prompt.
"""

import functools
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn

import httpx2
import openai

from app.config import Settings
from app.llm.errors import (
    BudgetExhausted,
    CircuitOpen,
    LLMCallFailed,
    LLMUnavailable,
    describe_error,
)
from app.llm.guards import CallBudget, CircuitBreaker, Clock, HourlyLimit
from app.llm.wire import (
    JsonMode,
    QuotaError,
    SchemaRejected,
    TransientError,
    is_quota_error,
    message_content,
    parse_json_object,
    response_format,
    schema_instructions,
    status_error,
    token_params,
    usage_counts,
)
from app.metrics import LLM_LATENCY
from app.openai_client import AttemptCounter, openai_client

log = logging.getLogger(__name__)


@dataclass
class CallCounts:
    """Logical calls: sent (passed the guards), refused by a guard, and how the sent ones ended."""

    calls: int = 0
    successes: int = 0
    failures: int = 0
    refused: int = 0


class LLMClient:
    """Asks an OpenAI-compatible chat API for JSON objects; raises LLMUnavailable when it can't."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        max_retries: int = 3,
        circuit_cooldown_s: float = 300.0,
        calls_per_hour: int = 1000,
        calls_per_job: int = 5,
        clock: Clock = time.monotonic,
    ) -> None:
        if timeout_s <= 0 or max_retries < 0 or calls_per_job < 0 or circuit_cooldown_s < 0:
            raise ValueError("timeout_s must be positive; retries, cooldown, budgets >= 0")
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.calls_per_job = calls_per_job
        self._timeout_s = timeout_s
        self._attempts = AttemptCounter()
        self._posts = 0  # requests asked of the SDK; the attempts beyond them are its retries
        self._sdk = openai_client(
            base_url=base_url,
            api_key=api_key,
            timeout_s=timeout_s,
            max_retries=max_retries,
            attempts=self._attempts,
            no_retry=_is_quota_answer,
        )
        self._circuit = CircuitBreaker(circuit_cooldown_s, clock)
        self._hourly = HourlyLimit(calls_per_hour, clock)
        self._json_mode: JsonMode = "json_schema"
        self._counts = CallCounts()
        self._tokens = {"prompt": 0, "completion": 0, "total": 0}
        self._last_error: str | None = None
        self._last_error_at: datetime | None = None
        self._closed = False

    async def chat_json(
        self,
        system: str,
        user: str,
        *,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        temperature: float | None = None,
        budget: CallBudget | None = None,
    ) -> dict[str, Any]:
        """The model's answer as a JSON object; raises an LLMUnavailable subclass otherwise."""
        probing = self._admit(budget)
        started = time.perf_counter()
        try:
            answer = await self._complete(
                functools.partial(
                    self._payload, system, user, schema, schema_name, max_tokens, temperature
                )
            )
        except LLMUnavailable as exc:
            LLM_LATENCY.labels("failure").observe(time.perf_counter() - started)
            self._record_failure(exc, probing)
            raise
        finally:
            if probing:
                self._circuit.end_probe()
        LLM_LATENCY.labels("success").observe(time.perf_counter() - started)
        self._record_success(probing)
        return answer

    def new_budget(self) -> CallBudget:
        """A fresh per-job budget of `calls_per_job` calls."""
        return CallBudget(self.calls_per_job)

    def status(self) -> dict[str, Any]:
        """Counters, token usage, circuit and budget state, and the last error (JSON-able)."""
        error_at = self._last_error_at
        return {
            "model": self.model,
            **asdict(self._counts),
            "retries": self._attempts.attempts - self._posts,
            "tokens": dict(self._tokens),
            "circuit": self._circuit.snapshot(),
            "hourly_budget": {"limit": self._hourly.limit, "used": self._hourly.used},
            "json_mode": self._json_mode,
            "last_error": self._last_error,
            "last_error_at": error_at.isoformat() if error_at else None,
        }

    async def close(self) -> None:
        """Closes the HTTP connections; later calls fail with LLMCallFailed."""
        if not self._closed:
            self._closed = True
            await self._sdk.close()

    def _admit(self, budget: CallBudget | None) -> bool:
        """Passes the guards or raises; True if this call is the circuit's half-open probe."""
        try:
            probing = self._circuit.admit()
        except CircuitOpen:
            self._counts.refused += 1
            raise
        try:
            self._hourly.check()
            if budget is not None:
                budget.spend()
        except BudgetExhausted:
            self._counts.refused += 1
            if probing:
                self._circuit.end_probe()
            raise
        self._hourly.record()
        self._counts.calls += 1
        return probing

    def _record_success(self, probing: bool) -> None:
        self._counts.successes += 1
        if probing:
            self._circuit.close()

    def _record_failure(self, error: LLMUnavailable, probing: bool) -> None:
        self._counts.failures += 1
        self._last_error = describe_error(error)
        self._last_error_at = datetime.now(UTC)
        if not probing or isinstance(error, CircuitOpen):
            return
        # The probe reached a server that still fails: wait another cooldown. Any other answer
        # (a 400, a bad JSON answer) shows the server is serving again.
        if isinstance(error, TransientError):
            self._circuit.trip()
        else:
            self._circuit.close()

    async def _complete(self, payload: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Posts the request `payload()` builds; if the server refuses JSON schema output, builds
        it again in JSON-object mode (from now on) and posts that."""
        try:
            body = await self._post(payload())
        except SchemaRejected as exc:
            log.warning(
                "%s rejects json_schema output; using json_object from now on: %s", self.url, exc
            )
            self._json_mode = "json_object"
            body = await self._post(payload())
        self._count_usage(body)
        return parse_json_object(message_content(body))

    def _payload(
        self,
        system: str,
        user: str,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, Any]:
        mode = self._json_mode
        if mode == "json_object":
            system += schema_instructions(schema)
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "response_format": response_format(mode, schema, schema_name),
            **token_params(self.model, max_tokens, temperature),
        }

    def _count_usage(self, body: dict[str, Any]) -> None:
        for key, value in usage_counts(body).items():
            self._tokens[key] += value

    async def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One chat completion through the SDK (which retries); its answer as a plain dict."""
        if self._closed:
            raise LLMCallFailed("the LLM client is closed")
        self._posts += 1
        try:
            completion = await self._sdk.chat.completions.create(**payload)
        except openai.APITimeoutError as exc:
            raise TransientError(f"{self.url} timed out ({self._timeout_s}s): {exc!r}") from exc
        except openai.APIConnectionError as exc:
            raise TransientError(f"request to {self.url} failed: {exc!r}") from exc
        except openai.APIStatusError as exc:
            self._raise_status_error(exc.response)
        except openai.APIError as exc:
            raise LLMCallFailed(f"{self.url} returned an unusable answer: {exc}") from exc
        return completion.model_dump()

    def _raise_status_error(self, response: httpx2.Response) -> NoReturn:
        error = status_error(response, self._json_mode)
        if isinstance(error, QuotaError):
            self._circuit.trip()
            log.warning(
                "LLM quota error; no LLM calls for %.0fs: %s", self._circuit.cooldown_s, error
            )
            raise CircuitOpen(f"quota error, circuit opened: {error}") from error
        raise error


async def _is_quota_answer(response: httpx2.Response) -> bool:
    """A quota error is not retried: it will not pass for a while (the circuit opens instead)."""
    if response.status_code != 429:
        return False
    await response.aread()
    return is_quota_error(response)


def create_llm_client(settings: Settings) -> LLMClient | None:
    """The configured client, or None when LLM_BASE_URL or LLM_MODEL is unset (rules only)."""
    if not settings.llm_base_url or not settings.llm_model:
        return None
    return LLMClient(
        base_url=settings.llm_base_url,
        model=settings.llm_model,
        api_key=settings.llm_api_key,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        circuit_cooldown_s=settings.enrichment_circuit_cooldown_s,
        calls_per_hour=settings.llm_calls_per_hour,
        calls_per_job=settings.llm_calls_per_job,
    )
