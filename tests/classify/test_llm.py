import json
from collections.abc import AsyncIterator, Iterator

import pytest

from app.classify import Classification, ClassificationStats, classify, classify_with_llm
from app.classify.llm import SCHEMA, SYSTEM_PROMPT
from app.llm import CallBudget, LLMClient
from app.models import MemoryType as T
from tests.fake_openai import FakeOpenAI, FakeOpenAIConfig

FALLBACK = Classification(T.CONTEXT, 0.3, "fallback", needs_reclassification=True)
NO_PATTERN = "Rust has a borrow checker"


@pytest.fixture(scope="module")
def server_module() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def server(server_module: FakeOpenAI) -> FakeOpenAI:
    server_module.reset(FakeOpenAIConfig())
    return server_module


@pytest.fixture
async def client(server: FakeOpenAI) -> AsyncIterator[LLMClient]:
    client = LLMClient(base_url=server.base_url, model="fake-chat", max_retries=1)
    yield client
    await client.close()


def answer(server: FakeOpenAI, **fields) -> None:
    server.config.chat_reply = json.dumps(fields)


async def test_asks_with_the_seed_prompt(server, client):
    answer(server, type="Decision", confidence=0.85)
    content = "x" * 1500

    assert await classify_with_llm(client, content) == Classification(T.DECISION, 0.85, "llm")

    body = server.requests[0].body
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "x" * 1000},
    ]
    assert (body["max_tokens"], body["temperature"]) == (50, 0.3)
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert "- Fact:" in SYSTEM_PROMPT and "- Event:" in SYSTEM_PROMPT


async def test_default_model_gets_no_temperature(server):
    answer(server, type="Habit", confidence=0.9)
    client = LLMClient(base_url=server.base_url, model="gpt-4o-mini")

    assert (await classify_with_llm(client, NO_PATTERN)).type == T.HABIT

    body = server.requests[0].body
    assert body["max_completion_tokens"] == 50
    assert "temperature" not in body and "max_tokens" not in body
    await client.close()


@pytest.mark.parametrize(
    ("raw", "memory_type"),
    [
        ("analysis", T.INSIGHT),
        ("decision", T.DECISION),
        (" Preference. ", T.PREFERENCE),
        ("episodic", T.EVENT),
        ("facts", T.FACT),
        ("Memory", T.CONTEXT),
    ],
)
async def test_normalises_aliases(server, client, raw, memory_type):
    answer(server, type=raw, confidence=0.8)

    assert await classify_with_llm(client, NO_PATTERN) == Classification(memory_type, 0.8, "llm")


@pytest.mark.parametrize("fields", [{"type": "banana", "confidence": 0.9}, {"type": 42}, {}])
async def test_unmappable_type_is_context(server, client, fields):
    server.config.chat_reply = json.dumps(fields)

    result = await classify_with_llm(client, NO_PATTERN)

    assert result == Classification(T.CONTEXT, 0.5, "llm_unmappable")


@pytest.mark.parametrize(
    ("fields", "confidence"),
    [
        ({"type": "Insight"}, 0.7),
        ({"type": "Insight", "confidence": "high"}, 0.7),
        ({"type": "Insight", "confidence": "0.4"}, 0.4),
        ({"type": "Insight", "confidence": 1.5}, 1.0),
        ({"type": "Insight", "confidence": -1}, 0.0),
    ],
)
async def test_confidence_defaults_and_bounds(server, client, fields, confidence):
    server.config.chat_reply = json.dumps(fields)

    result = await classify_with_llm(client, NO_PATTERN)

    assert result == Classification(T.INSIGHT, confidence, "llm")


async def test_server_error_falls_back_to_context(server, client):
    server.config.fail_times = 10
    stats = ClassificationStats()

    assert await classify_with_llm(client, NO_PATTERN, stats=stats) == FALLBACK

    assert len(server.requests) == 2
    assert (stats.llm_attempts, stats.llm_successes, stats.fallbacks) == (1, 0, 1)
    assert "HTTP 500" in stats.last_error
    assert stats.last_error_at is not None


async def test_garbage_answer_falls_back(server, client):
    server.config.chat_reply = "I think it is a Decision"

    assert await classify_with_llm(client, NO_PATTERN) == FALLBACK


async def test_open_circuit_falls_back(server, client):
    server.config.quota_exceeded = True
    await classify_with_llm(client, NO_PATTERN)
    server.config.quota_exceeded = False

    assert await classify_with_llm(client, NO_PATTERN) == FALLBACK
    assert len(server.requests) == 1


async def test_spent_budget_falls_back(server, client):
    assert await classify_with_llm(client, NO_PATTERN, CallBudget(0)) == FALLBACK
    assert server.requests == []


async def test_no_client_falls_back_without_an_error(server):
    stats = ClassificationStats()

    assert await classify_with_llm(None, NO_PATTERN, stats=stats) == FALLBACK

    assert (stats.llm_attempts, stats.fallbacks, stats.last_error) == (0, 1, None)


async def test_classify_tries_patterns_first(server, client):
    answer(server, type="Fact", confidence=0.9)
    stats = ClassificationStats()

    by_pattern = await classify("I prefer tea", client, stats=stats)
    by_llm = await classify(NO_PATTERN, client, stats=stats)
    answer(server, type="nonsense")
    unmappable = await classify(NO_PATTERN, client, stats=stats)
    without_llm = await classify(NO_PATTERN, None, stats=stats)

    assert by_pattern == Classification(T.PREFERENCE, 0.6, "pattern")
    assert by_llm == Classification(T.FACT, 0.9, "llm")
    assert unmappable.method == "llm_unmappable"
    assert without_llm == FALLBACK
    assert len(server.requests) == 2
    assert stats.as_dict() == {
        "pattern_classifications": 1,
        "llm_attempts": 2,
        "llm_successes": 2,
        "llm_unmappable": 1,
        "fallbacks": 1,
        "last_error": None,
        "last_error_at": None,
    }
