"""Attribute evidence in recall, on the real stores, spaCy and the local embedder: a question
about one of the user's attributes finds the /remember fact that fills it even where the two
share no word, an off-topic question still gets nothing, and another user's facts never show."""

from collections.abc import AsyncIterator

import httpx
import numpy as np
import pytest

from app.embeddings import Embedder, create_embedder
from app.recall import attribute_evidence, constants, evidence
from app.remember.attributes import ATTRIBUTES
from tests.conftest import ALICE_KEY, BOB_KEY, auth, running_client
from tests.remember.test_attributes_flow import say
from tests.remember.test_remember_flow import flow_settings

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
OFF_TOPIC = [
    "What is the capital of Peru?",
    "How do I reverse a linked list in Python?",
    "Why is the sky blue during the day?",
    "How many players are on a rugby union team?",
    "What is the official language of Mozambique?",  # without the name: the user's languages?
]


@pytest.fixture(scope="module")
async def store(falkordb_url: str, tmp_path_factory) -> AsyncIterator[httpx.AsyncClient]:
    settings = flow_settings(
        tmp_path_factory.mktemp("attribute-recall"), falkordb_url, session_idle_seconds=3600
    )
    async with running_client(settings) as client:
        await say(client, "Hi there! I'm Pia, data analyst, based in Derby.", 0)
        await say(client, "WE ADOPTED A KITTEN 😻 a tabby called Pickle!!!", 1)
        await say(client, "I speak Portuguese and a bit of Spanish", 2)
        await say(client, "I work as a night nurse in Leeds", 0, headers=BOB)
        yield client


async def recall(client: httpx.AsyncClient, question: str, headers=ALICE) -> dict:
    answer = await client.post("/recall", json={"query": question, "limit": 5}, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def contents(client: httpx.AsyncClient, question: str, headers=ALICE) -> list[str]:
    return [r["memory"]["content"] for r in (await recall(client, question, headers))["results"]]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what does the user do for work", "data analyst"),
        ("does the user have a pet", "Pickle"),
        ("where do I live?", "Derby"),
        ("which languages does the user know", "Portuguese"),
    ],
)
async def test_a_question_about_an_attribute_finds_the_fact_that_fills_it(
    store: httpx.AsyncClient, question: str, expected: str
) -> None:
    body = await recall(store, question)
    assert body["relevant"] is True
    found = [r["memory"]["content"] for r in body["results"]]
    assert any(expected in content for content in found), found


async def test_the_fact_found_by_its_attribute_shares_no_word_with_the_question(
    store: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case the attribute evidence is for: without it the floor stops this fact."""
    question = "where do I live?"
    home = next(c for c in await contents(store, question) if "Derby" in c)
    assert not {"where", "live", "lives", "living"} & set(home.lower().replace(".", " ").split())
    monkeypatch.setattr(constants, "ATTRIBUTE_MATCH_THRESHOLD", 2.0)  # no question matches a topic
    # and no personal floor below the floor (it admits a memory about the user at 0.15)
    monkeypatch.setattr(evidence, "PERSONAL_FLOOR", 1.0)
    assert not any("Derby" in c for c in await contents(store, question))


@pytest.mark.parametrize("question", OFF_TOPIC)
async def test_an_off_topic_question_still_gets_nothing(
    store: httpx.AsyncClient, question: str
) -> None:
    body = await recall(store, question)
    assert body["results"] == [] and body["relevant"] is False


async def test_another_users_attribute_facts_never_appear(store: httpx.AsyncClient) -> None:
    alice = " ".join(await contents(store, "what does the user do for work"))
    bob = " ".join(await contents(store, "what does the user do for work", headers=BOB))
    assert "data analyst" in alice and "nurse" not in alice
    assert "nurse" in bob and "analyst" not in bob and "Pickle" not in bob
    assert "Pickle" not in " ".join(await contents(store, "does the user have a pet", BOB))


@pytest.fixture(scope="module")
async def local_embedder() -> AsyncIterator[Embedder]:
    embedder = create_embedder("local", threads=1)
    yield embedder
    await embedder.close()


@pytest.fixture(scope="module")
async def local_prototypes(local_embedder: Embedder) -> attribute_evidence.Prototypes:
    found = await attribute_evidence.prototypes(local_embedder)
    assert found is not None
    return found


async def _matched(
    question: str, embedder: Embedder, found: attribute_evidence.Prototypes
) -> frozenset[str]:
    vector = np.asarray(await embedder.embed_query(question), dtype=np.float32)
    return attribute_evidence.matched_attributes([vector], found)


@pytest.mark.parametrize(
    ("question", "attribute"),
    [
        ("what does the user do for a living", "job_title"),
        ("does the user have any pets", "pet"),
        ("which city does the user live in", "residence"),
        ("which languages can the user talk in", "language"),  # paraphrases, not prototypes
        ("does the user have a wife or a husband", "spouse"),
    ],
)
async def test_a_question_maps_to_its_attribute(
    local_embedder, local_prototypes, question, attribute
) -> None:
    assert attribute in await _matched(question, local_embedder, local_prototypes)


@pytest.mark.parametrize("question", OFF_TOPIC)
async def test_an_off_topic_question_maps_to_no_attribute(
    local_embedder, local_prototypes, question
) -> None:
    assert await _matched(question, local_embedder, local_prototypes) == frozenset()


def test_every_topic_names_attributes_of_the_taxonomy() -> None:
    for topic in attribute_evidence.TOPICS:
        assert topic.attributes <= set(ATTRIBUTES), topic.name
    answered = {a for topic in attribute_evidence.TOPICS for a in topic.attributes}
    assert answered == set(ATTRIBUTES)
