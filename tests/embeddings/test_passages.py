"""Long texts embedded whole: passages cut at natural ends, the vector their mean."""

from collections.abc import AsyncIterator

import numpy as np
import pytest

from app.embeddings import LocalEmbedder
from app.embeddings.passages import PASSAGE_CHARS, embed_whole, passage_spans, passages

GARDEN = (
    "We talked about how to prune tomato plants in late summer, which varieties tolerate "
    "partial shade, and whether a drip line beats watering by hand for raised beds. "
) * 5
KITCHEN = (
    "Then the conversation turned to bread: a sourdough starter wants feeding twice a day, "
    "rye flour makes it livelier, and a Dutch oven gives the loaf its crust. "
) * 5
FILLER = GARDEN.strip() + "\n\n" + KITCHEN.strip() + "\n\n"
FACT = "My sister Zuzana moved to Brno, where she teaches the violin at the conservatory."


def test_short_texts_stay_whole_and_long_ones_are_cut_at_sentence_ends():
    assert passages("One short turn.") == ["One short turn."]
    pieces = passages(FILLER + FACT)
    assert len(pieces) > 1 and all(len(p) <= PASSAGE_CHARS for p in pieces)
    assert all(p.endswith(".") for p in pieces[:-1])  # cut after a sentence, not inside a word
    assert " ".join(pieces).split() == (FILLER + FACT).split()  # nothing lost, nothing added
    unbroken = "x" * (2 * PASSAGE_CHARS + 10)
    assert [len(p) for p in passages(unbroken)] == [PASSAGE_CHARS, PASSAGE_CHARS, 10]


@pytest.fixture(scope="module")
async def embedder() -> AsyncIterator[LocalEmbedder]:
    local = LocalEmbedder()
    yield local
    await local.close()


async def test_a_fact_past_the_models_window_moves_the_vector(embedder):
    long_turn = FILLER + FACT  # the fact starts past the model's 256 tokens
    pieces = passages(long_turn)
    each = np.asarray(await embedder.embed(pieces))
    whole = np.asarray((await embed_whole(embedder, [long_turn]))[0])
    mean = each.mean(axis=0)
    assert whole == pytest.approx(mean / np.linalg.norm(mean), abs=1e-5)
    # Wide margins: the truncated vector never saw the last passage, the whole one holds it.
    cut_off = np.asarray((await embedder.embed([long_turn]))[0])
    assert float(each[-1] @ whole) > float(each[-1] @ cut_off) + 0.2


async def test_short_texts_get_the_vectors_they_always_had(embedder):
    texts = ["I moved to Berlin last spring.", "ok"]
    assert await embed_whole(embedder, texts) == await embedder.embed(texts)


@pytest.mark.parametrize(
    "text", ["", "   ", "One short turn.", "  " + FILLER + FACT + "\n", "x" * 1900]
)
def test_the_spans_cover_the_text_in_order_without_whitespace_at_their_ends(text: str):
    spans = passage_spans(text)
    assert all(0 <= start < end <= len(text) for start, end in spans)
    assert all(end <= after for (_, end), (after, _) in zip(spans, spans[1:], strict=False))
    pieces = [text[start:end] for start, end in spans]
    assert all(p == p.strip() and len(p) <= PASSAGE_CHARS for p in pieces)
    bounds = [0, *(i for span in spans for i in span), len(text)]
    outside = "".join(text[bounds[i] : bounds[i + 1]] for i in range(0, len(bounds), 2))
    assert outside.strip() == ""  # only whitespace is left out
