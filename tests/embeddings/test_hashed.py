import math

import pytest

from app.embeddings import Embedder, HashEmbedder, create_embedder


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def test_same_text_same_vector_across_instances():
    a, b = HashEmbedder(dimension=64), HashEmbedder(dimension=64)

    assert await a.embed(["hello world"]) == await b.embed(["hello world"])
    assert await a.embed_query("hello world") == (await a.embed(["hello world"]))[0]


async def test_different_texts_different_vectors():
    vectors = await HashEmbedder(dimension=64).embed(["hello world", "hello world!", "Hello World"])

    assert len({tuple(v) for v in vectors}) == 3


async def test_unit_norm_and_dimension():
    vectors = await HashEmbedder(dimension=32).embed(["a b c", "", "x" * 10_000])

    assert [len(v) for v in vectors] == [32, 32, 32]
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0) for v in vectors)


async def test_shared_words_are_closer_than_unrelated_texts():
    embedder = HashEmbedder(dimension=384)
    base, overlap, unrelated = await embedder.embed(
        [
            "the cat sat on the mat",
            "a cat sat on a rug",
            "quarterly revenue grew twelve percent",
        ]
    )

    assert cosine(base, overlap) > cosine(base, unrelated) + 0.15


async def test_order_preserved_and_empty():
    embedder = HashEmbedder(dimension=16)
    texts = ["one", "two", "three"]

    assert await embedder.embed(list(reversed(texts))) == list(
        reversed(await embedder.embed(texts))
    )
    assert await embedder.embed([]) == []


async def test_factory_and_protocol():
    embedder = create_embedder("hash", dimension=48)

    assert isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dimension) == ("hash", 48)
    await embedder.embed(["x"])
    assert embedder.health()["state"] == "ok"
    assert embedder.health()["last_success_at"] is not None
    assert create_embedder("hash", dimension=None).dimension == 384


def test_factory_rejects_unknown_provider():
    with pytest.raises(ValueError, match="local.*openai.*hash"):
        create_embedder("sentence-transformers", dimension=384)


async def test_a_bare_string_is_refused():
    with pytest.raises(TypeError, match="embed_query"):
        await HashEmbedder(dimension=8).embed("not a list")
