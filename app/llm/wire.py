"""The chat-completions wire format: request parameters in, errors and JSON answers out."""

import json
import re
from typing import Any, Literal

import httpx2

from app.llm.errors import LLMCallFailed

JsonMode = Literal["json_schema", "json_object"]

ERROR_BODY_CHARS = 300
# These models take max_completion_tokens and refuse a temperature (the seed's rule).
COMPLETION_TOKEN_MODELS = ("o1", "o3", "o4", "gpt-4o", "gpt-4.1", "gpt-5")
# A 400/422 that mentions one of these is a server without structured outputs.
SCHEMA_REJECTION_MARKERS = ("response_format", "json_schema", "json schema", "structured output")
FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)


class TransientError(LLMCallFailed):
    """A failure that may pass (429, 5xx, timeout, lost connection): the SDK's retries ran out."""


class QuotaError(LLMCallFailed):
    """HTTP 402, or a 429 saying the quota is used up: retrying will not help for a while."""


class SchemaRejected(LLMCallFailed):
    """The server does not accept response_format json_schema."""


def token_params(model: str, max_tokens: int, temperature: float | None) -> dict[str, Any]:
    """max_completion_tokens (and no temperature) for the newer OpenAI models, else max_tokens."""
    if model.lower().startswith(COMPLETION_TOKEN_MODELS):
        return {"max_completion_tokens": max_tokens}
    params: dict[str, Any] = {"max_tokens": max_tokens}
    if temperature is not None:
        params["temperature"] = temperature
    return params


def response_format(mode: JsonMode, schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The response_format parameter for `mode`."""
    if mode == "json_object":
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def schema_instructions(schema: dict[str, Any]) -> str:
    """What json_object mode appends to the system prompt, since the schema is not sent."""
    return "\n\nAnswer with one JSON object only, matching this JSON schema:\n" + json.dumps(
        schema, separators=(",", ":")
    )


def error_message(response: httpx2.Response) -> str:
    """The error text of a response: code, type and message when it has an OpenAI error body."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return response.text
    if isinstance(error, dict):
        return " ".join(str(error.get(key) or "") for key in ("code", "type", "message"))
    return str(error) if error else response.text


def is_quota_error(response: httpx2.Response) -> bool:
    """402, or a 429 whose error says "quota" (OpenAI: insufficient_quota)."""
    if response.status_code == 402:
        return True
    return response.status_code == 429 and "quota" in error_message(response).lower()


def rejects_json_schema(response: httpx2.Response) -> bool:
    """Whether a 400/422 blames the response_format (no structured-output support)."""
    text = response.text.lower()
    return response.status_code in (400, 422) and any(m in text for m in SCHEMA_REJECTION_MARKERS)


def is_transient_status(status: int) -> bool:
    """The statuses the SDK retries (a request or lock timeout, 429, 5xx): they may pass."""
    return status in (408, 409, 429) or status >= 500


def status_error(response: httpx2.Response, mode: JsonMode) -> LLMCallFailed:
    """The error for a non-2xx response, quoting the start of its body."""
    message = f"HTTP {response.status_code} from {response.url}: {response.text[:ERROR_BODY_CHARS]}"
    if is_quota_error(response):
        return QuotaError(message)
    if is_transient_status(response.status_code):
        return TransientError(message)
    if mode == "json_schema" and rejects_json_schema(response):
        return SchemaRejected(message)
    return LLMCallFailed(message)


def message_content(body: dict[str, Any]) -> str:
    """The text of the first choice; raises LLMCallFailed if there is none."""
    try:
        choice = body["choices"][0]
        content = choice["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise LLMCallFailed(f"malformed chat completion: {exc!r}") from exc
    if not isinstance(content, str) or not content.strip():
        raise LLMCallFailed(f"empty answer (finish_reason={choice.get('finish_reason')!r})")
    return content


def parse_json_object(content: str) -> dict[str, Any]:
    """The JSON object in `content`, which may be wrapped in a ```json fence."""
    text = content.strip()
    fenced = FENCED.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise LLMCallFailed(f"the answer is not JSON: {content[:ERROR_BODY_CHARS]!r}") from exc
    if not isinstance(value, dict):
        raise LLMCallFailed(f"the answer is not a JSON object: {content[:ERROR_BODY_CHARS]!r}")
    return value


def usage_counts(body: dict[str, Any]) -> dict[str, int]:
    """prompt, completion and total tokens from the `usage` field; missing values count 0."""
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return {"prompt": 0, "completion": 0, "total": 0}
    prompt = as_count(usage.get("prompt_tokens"))
    completion = as_count(usage.get("completion_tokens"))
    total = as_count(usage.get("total_tokens")) or prompt + completion
    return {"prompt": prompt, "completion": completion, "total": total}


def as_count(value: Any) -> int:
    """`value` if it is a non-negative int, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
