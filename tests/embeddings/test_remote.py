import asyncio
import math
import socket
from collections.abc import Iterator

import pytest

from app.embeddings import (
    EmbedderUnavailable,
    EmbeddingError,
    OpenAIEmbedder,
    create_embedder,
)
from tests.fake_openai import FakeOpenAI, FakeOpenAIConfig, fake_vector

DIM = 8


@pytest.fixture(scope="module")
def server_module() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def server(server_module: FakeOpenAI) -> FakeOpenAI:
    server_module.reset(FakeOpenAIConfig(dimension=DIM))
    return server_module


def make_embedder(server: FakeOpenAI, **overrides) -> OpenAIEmbedder:
    settings = {
        "base_url": server.base_url,
        "model": "fake-embed",
        "dimension": DIM,
        "api_key": "sk-test",
        "batch_size": 4,
        "timeout": 2.0,
        "max_retries": 2,
    } | overrides
    return OpenAIEmbedder(**settings)


async def test_batches_and_keeps_order(server: FakeOpenAI):
    embedder = make_embedder(server)
    texts = [f"text number {i}" for i in range(10)]

    vectors = await embedder.embed(texts)

    # The fake answers in reverse order: the vectors must follow the `index` field.
    assert vectors == [fake_vector(t, DIM) for t in texts]  # JSON floats round-trip exactly
    assert [len(r.body["input"]) for r in server.requests] == [4, 4, 2]
    assert server.paths() == ["/v1/embeddings"] * math.ceil(10 / 4)
    first = server.requests[0]
    assert first.body["model"] == "fake-embed"
    assert "dimensions" not in first.body
    assert first.headers["authorization"] == "Bearer sk-test"
    assert embedder.health()["state"] == "ok"
    await embedder.close()


async def test_embed_query_and_empty_input(server: FakeOpenAI):
    embedder = make_embedder(server)

    assert await embedder.embed_query("hello") == fake_vector("hello", DIM)
    assert await embedder.embed([]) == []
    assert len(server.requests) == 1
    await embedder.close()


async def test_trailing_slash_in_base_url(server: FakeOpenAI):
    embedder = make_embedder(server, base_url=server.base_url + "/")

    await embedder.embed(["x"])

    assert embedder.url == server.base_url + "/embeddings"
    assert server.paths() == ["/v1/embeddings"]
    await embedder.close()


async def test_retries_429_then_succeeds(server: FakeOpenAI):
    server.config.fail_times, server.config.fail_status = 2, 429
    embedder = make_embedder(server)

    vectors = await embedder.embed(["a", "b"])

    assert len(vectors) == 2
    assert len(server.requests) == 3
    assert embedder.health()["state"] == "ok"
    await embedder.close()


async def test_persistent_500_fails_after_max_attempts(server: FakeOpenAI):
    server.config.fail_times, server.config.fail_status = 100, 500
    embedder = make_embedder(server, max_retries=2)

    with pytest.raises(EmbeddingError, match="500"):
        await embedder.embed(["a"])

    assert len(server.requests) == 3
    health = embedder.health()
    assert health["state"] in {"degraded", "down"}
    assert "500" in health["last_error"]
    assert health["last_success_at"] is None
    await embedder.close()


async def test_repeated_failures_mark_down_then_success_recovers(server: FakeOpenAI):
    server.config.fail_times = 100
    embedder = make_embedder(server, max_retries=0)

    for _ in range(3):
        with pytest.raises(EmbeddingError):
            await embedder.embed(["a"])
    assert embedder.health()["state"] == "down"

    server.config.fail_times = 0
    await embedder.embed(["a"])
    assert embedder.health()["state"] == "ok"
    assert embedder.health()["last_success_at"] is not None
    await embedder.close()


async def test_400_is_not_retried(server: FakeOpenAI):
    server.config.fail_times, server.config.fail_status = 100, 400
    embedder = make_embedder(server)

    with pytest.raises(EmbeddingError, match="400"):
        await embedder.embed(["a"])

    assert len(server.requests) == 1
    await embedder.close()


async def test_401_means_unavailable(server: FakeOpenAI):
    server.config.api_key = "sk-other"
    embedder = make_embedder(server)

    with pytest.raises(EmbedderUnavailable, match="401"):
        await embedder.embed(["a"])

    assert len(server.requests) == 1
    assert embedder.health()["state"] == "down"
    await embedder.close()


async def test_wrong_dimension_is_an_error(server: FakeOpenAI):
    server.config.wrong_dimension = True
    embedder = make_embedder(server)

    with pytest.raises(EmbeddingError, match=f"{DIM}-d"):
        await embedder.embed(["a"])
    await embedder.close()


async def test_timeout_is_retried_then_fails(server: FakeOpenAI):
    server.config.delay = 0.5
    embedder = make_embedder(server, timeout=0.1, max_retries=1)

    with pytest.raises(EmbeddingError, match="timed out"):
        await embedder.embed(["a"])

    assert len(server.requests) == 2
    await embedder.close()


async def test_dimensions_param_forwarded_when_configured(server: FakeOpenAI):
    embedder = make_embedder(server, dimension=5, send_dimensions=True)

    vectors = await embedder.embed(["a"])

    assert server.requests[0].body["dimensions"] == 5
    assert len(vectors[0]) == 5
    await embedder.close()


async def test_connection_refused_is_retried_then_unavailable():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound but not listening: connections are refused
        embedder = OpenAIEmbedder(
            base_url=f"http://127.0.0.1:{port}/v1",
            model="m",
            dimension=DIM,
            max_retries=1,
        )
        with pytest.raises(EmbedderUnavailable, match="cannot connect"):
            await embedder.embed(["a"])
    assert embedder.health()["state"] == "down"
    await embedder.close()


async def test_concurrent_calls_share_one_client(server: FakeOpenAI):
    embedder = make_embedder(server)

    results = await asyncio.gather(*(embedder.embed_query(f"q{i}") for i in range(8)))

    assert results == [fake_vector(f"q{i}", DIM) for i in range(8)]
    await embedder.close()


async def test_closed_embedder_refuses(server: FakeOpenAI):
    embedder = make_embedder(server)
    await embedder.close()

    with pytest.raises(EmbedderUnavailable, match="closed"):
        await embedder.embed(["a"])


def test_factory_builds_openai_and_checks_settings(server: FakeOpenAI):
    embedder = create_embedder(
        "openai", dimension=DIM, model="fake-embed", base_url=server.base_url, api_key="k"
    )

    assert (embedder.name, embedder.model, embedder.dimension) == ("openai", "fake-embed", DIM)
    with pytest.raises(ValueError, match="dimension"):
        create_embedder("openai", dimension=None, model="m", base_url=server.base_url)
    with pytest.raises(ValueError, match="http"):
        create_embedder("openai", dimension=DIM, model="m", base_url="127.0.0.1:1/v1")


def test_fake_server_chat_completions(server: FakeOpenAI):
    import httpx

    server.config.chat_reply = lambda messages: messages[-1]["content"].upper()
    response = httpx.post(
        server.base_url + "/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    )

    assert response.json()["choices"][0]["message"]["content"] == "HI"
    assert server.paths() == ["/v1/chat/completions"]
