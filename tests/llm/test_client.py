import asyncio
import json
import socket

import pytest

from app.config import Settings
from app.llm import (
    BudgetExhausted,
    CallBudget,
    CircuitOpen,
    LLMCallFailed,
    LLMClient,
    LLMUnavailable,
    create_llm_client,
)
from tests.fake_openai import ChatError, FakeOpenAI
from tests.llm.conftest import FakeClock

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}
COOLDOWN = 300.0


def make_client(server: FakeOpenAI, clock: FakeClock, **overrides) -> LLMClient:
    settings = {
        "base_url": server.base_url,
        "model": "fake-chat",
        "api_key": "sk-test",
        "timeout_s": 2.0,
        "max_retries": 2,
        "circuit_cooldown_s": COOLDOWN,
        "clock": clock,
    } | overrides
    return LLMClient(**settings)


async def ask(client: LLMClient, **overrides) -> dict:
    arguments = {"schema": SCHEMA, "schema_name": "answer", "max_tokens": 20} | overrides
    return await client.chat_json("Be terse.", "Say hi.", **arguments)


async def test_sends_a_json_schema_request_and_returns_the_object(server, clock):
    client = make_client(server, clock)

    assert await ask(client, temperature=0.5) == {"answer": "hi"}

    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body == {
        "model": "fake-chat",
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": "Say hi."},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True},
        },
        "max_tokens": 20,
        "temperature": 0.5,
    }
    status = client.status()
    assert status["calls"] == status["successes"] == 1
    assert (status["failures"], status["retries"], status["refused"]) == (0, 0, 0)
    assert status["json_mode"] == "json_schema"
    assert status["last_error"] is None
    json.dumps(status)
    await client.close()


async def test_retries_server_errors_then_succeeds(server, clock):
    server.config.fail_times = 2
    client = make_client(server, clock)

    assert await ask(client) == {"answer": "hi"}

    assert len(server.requests) == 3
    assert client.status()["retries"] == 2
    assert client.status()["successes"] == 1
    await client.close()


async def test_retries_a_rate_limit_that_is_not_a_quota_error(server, clock):
    server.config.fail_times, server.config.fail_status = 1, 429
    client = make_client(server, clock)

    assert await ask(client) == {"answer": "hi"}

    assert len(server.requests) == 2
    assert client.status()["circuit"]["open"] is False
    await client.close()


async def test_a_quota_message_opens_the_circuit_a_rate_limit_does_not(server, clock):
    server.config.chat_script = [
        ChatError(429, "Rate limit reached for requests per min", type="requests"),
        '{"answer": "after a rate limit"}',
        ChatError(429, "You exceeded your current quota", code=None, type="rate_limit_error"),
    ]
    client = make_client(server, clock)

    assert await ask(client) == {"answer": "after a rate limit"}
    with pytest.raises(CircuitOpen):
        await ask(client)

    assert len(server.requests) == 3
    await client.close()


async def test_gives_up_after_max_retries(server, clock):
    server.config.fail_times = 10
    client = make_client(server, clock)

    with pytest.raises(LLMCallFailed, match="HTTP 500"):
        await ask(client)

    assert len(server.requests) == 3
    status = client.status()
    assert (status["calls"], status["failures"], status["retries"]) == (1, 1, 2)
    assert "HTTP 500" in status["last_error"]
    assert status["last_error_at"] is not None
    assert status["circuit"]["open"] is False  # only a quota error opens it
    await client.close()


async def test_does_not_retry_a_bad_request(server, clock):
    server.config.fail_times, server.config.fail_status = 5, 400
    client = make_client(server, clock)

    with pytest.raises(LLMCallFailed, match="HTTP 400"):
        await ask(client)

    assert len(server.requests) == 1
    assert client.status()["json_mode"] == "json_schema"
    await client.close()


async def test_retries_lost_connections(clock):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once the socket closes
    client = LLMClient(
        base_url=f"http://127.0.0.1:{port}/v1",
        model="fake-chat",
        max_retries=2,
        clock=clock,
    )

    with pytest.raises(LLMCallFailed, match="failed"):
        await ask(client)

    assert client.status()["retries"] == 2
    await client.close()


async def test_retries_timeouts(server, clock):
    server.config.delay = 0.5
    client = make_client(server, clock, timeout_s=0.1, max_retries=1)

    with pytest.raises(LLMCallFailed, match="timed out"):
        await ask(client)

    assert len(server.requests) == 2
    await client.close()


async def test_quota_error_opens_the_circuit_until_the_cooldown_ends(server, clock):
    server.config.quota_exceeded = True
    client = make_client(server, clock)

    with pytest.raises(CircuitOpen, match="quota"):
        await ask(client)
    assert len(server.requests) == 1  # a quota error is not retried

    clock.advance(COOLDOWN - 1)
    with pytest.raises(CircuitOpen):
        await ask(client)
    assert len(server.requests) == 1  # refused without a request
    circuit = client.status()["circuit"]
    assert circuit["open"] is True
    assert circuit["opened_count"] == 1
    assert circuit["reopens_in_s"] == 1.0
    assert circuit["opened_at"] is not None
    assert client.status()["refused"] == 1

    server.config.quota_exceeded = False
    clock.advance(1)
    assert await ask(client) == {"answer": "hi"}
    assert len(server.requests) == 2
    assert client.status()["circuit"] == {
        "open": False,
        "state": "closed",
        "opened_at": None,
        "reopens_in_s": 0.0,
        "opened_count": 1,
    }
    await client.close()


async def test_payment_required_opens_the_circuit(server, clock):
    server.config.fail_times, server.config.fail_status = 1, 402
    client = make_client(server, clock)

    with pytest.raises(CircuitOpen):
        await ask(client)

    assert client.status()["circuit"]["open"] is True
    await client.close()


async def test_a_failing_probe_reopens_the_circuit(server, clock):
    server.config.quota_exceeded = True
    client = make_client(server, clock)
    with pytest.raises(CircuitOpen):
        await ask(client)

    clock.advance(COOLDOWN)
    assert client.status()["circuit"]["state"] == "half_open"
    with pytest.raises(CircuitOpen):
        await ask(client)  # the probe: still over quota
    assert len(server.requests) == 2
    assert client.status()["circuit"]["opened_count"] == 2

    clock.advance(COOLDOWN - 1)
    with pytest.raises(CircuitOpen):
        await ask(client)
    assert len(server.requests) == 2
    await client.close()


async def test_a_probe_that_meets_a_failing_server_reopens_the_circuit(server, clock):
    server.config.quota_exceeded = True
    client = make_client(server, clock)
    with pytest.raises(CircuitOpen):
        await ask(client)
    server.config.quota_exceeded = False
    server.config.fail_times = 10

    clock.advance(COOLDOWN)
    with pytest.raises(LLMCallFailed, match="HTTP 500"):
        await ask(client)

    assert client.status()["circuit"]["open"] is True
    assert client.status()["circuit"]["reopens_in_s"] == COOLDOWN
    await client.close()


async def test_only_one_probe_at_a_time(server, clock):
    server.config.quota_exceeded = True
    client = make_client(server, clock)
    with pytest.raises(CircuitOpen):
        await ask(client)
    server.config.quota_exceeded = False
    server.config.delay = 0.3
    clock.advance(COOLDOWN)

    probe = asyncio.create_task(ask(client))
    await asyncio.sleep(0.1)
    with pytest.raises(CircuitOpen):
        await ask(client)

    assert await probe == {"answer": "hi"}
    assert client.status()["circuit"]["state"] == "closed"
    assert len(server.requests) == 2
    await client.close()


async def test_per_job_budget_counts_logical_calls(server, clock):
    client = make_client(server, clock, calls_per_job=2)
    budget = client.new_budget()
    server.config.fail_times = 1  # a retry does not spend the budget

    await ask(client, budget=budget)
    await ask(client, budget=budget)
    with pytest.raises(BudgetExhausted):
        await ask(client, budget=budget)

    assert budget.used == 2
    assert len(server.requests) == 3
    assert client.status()["refused"] == 1
    assert await ask(client, budget=client.new_budget()) == {"answer": "hi"}
    await client.close()


def test_call_budget():
    budget = CallBudget(1)
    budget.spend()
    with pytest.raises(BudgetExhausted):
        budget.spend()
    assert (budget.used, budget.remaining) == (1, 0)
    assert issubclass(BudgetExhausted, LLMUnavailable)


async def test_hourly_limit_is_a_rolling_window(server, clock):
    client = make_client(server, clock, calls_per_hour=2)

    await ask(client)
    clock.advance(1800)
    await ask(client)
    with pytest.raises(BudgetExhausted, match="per hour"):
        await ask(client)
    assert len(server.requests) == 2
    assert client.status()["hourly_budget"] == {"limit": 2, "used": 2}

    clock.advance(1800)  # the first call is now an hour old
    await ask(client)
    assert client.status()["hourly_budget"] == {"limit": 2, "used": 2}
    await client.close()


async def test_counts_token_usage(server, clock):
    server.config.chat_usage = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    client = make_client(server, clock)

    await ask(client)
    await ask(client)
    server.config.chat_usage = {"prompt_tokens": 5, "completion_tokens": 2}
    await ask(client)

    assert client.status()["tokens"] == {"prompt": 27, "completion": 8, "total": 35}
    await client.close()


async def test_falls_back_to_json_object_when_json_schema_is_rejected(server, clock):
    server.config.reject_json_schema = True
    client = make_client(server, clock)

    assert await ask(client) == {"answer": "hi"}

    rejected, accepted = server.requests
    assert rejected.body["response_format"]["type"] == "json_schema"
    assert accepted.body["response_format"] == {"type": "json_object"}
    system = accepted.body["messages"][0]["content"]
    assert system.startswith("Be terse.")
    assert json.dumps(SCHEMA, separators=(",", ":")) in system
    assert client.status()["json_mode"] == "json_object"
    assert (client.status()["calls"], client.status()["retries"]) == (1, 0)

    assert await ask(client) == {"answer": "hi"}  # remembered: no second rejection
    assert server.requests[2].body["response_format"] == {"type": "json_object"}
    assert len(server.requests) == 3
    await client.close()


@pytest.mark.parametrize(
    "content",
    ['```json\n{"answer": "hi"}\n```', '```\n{"answer": "hi"}\n```', '  {"answer": "hi"}\n'],
)
async def test_parses_fenced_json(server, clock, content):
    server.config.chat_reply = content
    client = make_client(server, clock)

    assert await ask(client) == {"answer": "hi"}
    await client.close()


@pytest.mark.parametrize("content", ["not json at all", "[1, 2]", '"hi"', "", "```json\n{```"])
async def test_unusable_answers_fail(server, clock, content):
    server.config.chat_reply = content
    client = make_client(server, clock)

    with pytest.raises(LLMCallFailed):
        await ask(client)

    assert len(server.requests) == 1  # an answer is not retried
    assert client.status()["failures"] == 1
    await client.close()


@pytest.mark.parametrize(
    "model", ["gpt-4o-mini", "gpt-4o", "o1-preview", "o3-mini", "o4-mini", "gpt-4.1-nano", "gpt-5"]
)
async def test_newer_openai_models_get_max_completion_tokens_and_no_temperature(
    server, clock, model
):
    client = make_client(server, clock, model=model)

    await ask(client, temperature=0.3)

    body = server.requests[0].body
    assert body["max_completion_tokens"] == 20
    assert "max_tokens" not in body
    assert "temperature" not in body
    await client.close()


@pytest.mark.parametrize("model", ["llama3.1:8b", "gpt-3.5-turbo", "qwen2.5-7b-instruct"])
async def test_other_models_get_max_tokens_and_temperature(server, clock, model):
    client = make_client(server, clock, model=model)

    await ask(client, temperature=0.3)
    await ask(client)

    with_temperature, without = (r.body for r in server.requests)
    assert (with_temperature["max_tokens"], with_temperature["temperature"]) == (20, 0.3)
    assert "max_completion_tokens" not in with_temperature
    assert "temperature" not in without
    await client.close()


async def test_a_closed_client_fails(server, clock):
    client = make_client(server, clock)
    await client.close()

    with pytest.raises(LLMCallFailed, match="closed"):
        await ask(client)
    assert server.requests == []


def test_create_llm_client_needs_a_base_url_and_a_model():
    assert create_llm_client(Settings(llm_base_url=None, llm_model="m")) is None
    assert create_llm_client(Settings(llm_base_url="http://x/v1", llm_model=None)) is None

    client = create_llm_client(
        Settings(
            llm_base_url="http://127.0.0.1:9/v1/",
            llm_model="gpt-4o-mini",
            llm_calls_per_job=3,
            llm_calls_per_hour=7,
            enrichment_circuit_cooldown_s=60,
        )
    )

    assert client is not None
    assert client.url == "http://127.0.0.1:9/v1/chat/completions"
    assert client.new_budget().max_calls == 3
    assert client.status()["hourly_budget"] == {"limit": 7, "used": 0}
    assert client.status()["model"] == "gpt-4o-mini"


def test_rejects_a_base_url_without_a_scheme():
    with pytest.raises(ValueError):
        LLMClient(base_url="localhost:8000/v1", model="m")
