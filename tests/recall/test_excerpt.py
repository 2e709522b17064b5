"""The passage of a long result that matched: its offsets in the result, quoted by the context."""

from collections.abc import AsyncIterator

import httpx
import pytest

from app.embeddings.passages import PASSAGE_CHARS, passage_spans
from app.recall.evidence import terms_of
from app.recall.excerpt import best_passage
from tests.conftest import ALICE_KEY, auth, running_client, test_settings
from tests.embeddings.test_passages import FACT, GARDEN, KITCHEN
from tests.recall.test_recall import _wait_embedded

H = auth(ALICE_KEY)
CYCLING = (
    "Later we compared gravel bikes with touring bikes, tubeless tyres with inner tubes, and "
    "which panniers keep a laptop dry on a long commute in the rain. "
) * 2
LONG = "\n\n".join([GARDEN.strip(), KITCHEN.strip(), CYCLING + FACT])


def test_the_passage_holding_the_most_query_words_is_chosen():
    spans = passage_spans(LONG)
    assert len(spans) >= 3 and len(LONG) > PASSAGE_CHARS
    chosen = best_passage(LONG, terms_of("Which instrument does Zuzana teach in Brno?"))
    assert chosen == spans[-1] and FACT in LONG[chosen[0] : chosen[1]]
    assert "sourdough" not in LONG[chosen[0] : chosen[1]]
    sourdough = best_passage(LONG, terms_of("How often do I feed the sourdough starter?"))
    assert sourdough is not None and "sourdough" in LONG[sourdough[0] : sourdough[1]]


def test_no_passage_for_a_short_memory_a_tie_or_no_word_in_common():
    assert best_passage(FACT, terms_of("Where does Zuzana teach?")) is None
    assert best_passage(LONG, terms_of("What is the capital of Peru?")) is None
    tie = GARDEN.strip() + "\n\n" + GARDEN.strip()
    assert best_passage(tie, terms_of("tomato plants")) is None


@pytest.fixture(scope="module")
async def app_client(falkordb_url: str, tmp_path_factory) -> AsyncIterator[httpx.AsyncClient]:
    """Engram with its job workers, so that stored memories get their vectors."""
    settings = test_settings(
        tmp_path_factory.mktemp("excerpt"), falkordb_url=falkordb_url, workers=2, jobs_sweep_s=1
    )
    async with running_client(settings) as client:
        yield client


async def test_a_long_result_says_which_passage_matched_and_the_context_quotes_it(
    app_client: httpx.AsyncClient,
):
    stored = await app_client.post("/memory", json={"content": LONG}, headers=H)
    short = await app_client.post("/memory", json={"content": FACT}, headers=H)
    await _wait_embedded(app_client)
    long_id, short_id = stored.json()["memory_id"], short.json()["memory_id"]
    query = "Which instrument does Zuzana teach in Brno?"
    body = (await app_client.get("/recall", params={"query": query}, headers=H)).json()
    by_id = {item["id"]: item for item in body["results"]}
    passage = by_id[long_id]["passage"]
    assert LONG[passage["start"] : passage["end"]] == (CYCLING + FACT).strip()
    assert "passage" not in by_id[short_id]

    context = (await app_client.post("/recall/context", json={"query": query}, headers=H)).json()[
        "context"
    ]
    assert f'excerpt="{passage["start"]}-{passage["end"]} of {len(LONG)}"' in context
    assert "sourdough" not in context and context.count(FACT) == 2
