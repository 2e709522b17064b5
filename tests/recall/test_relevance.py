"""The relevance floor and gate: unrelated questions get nothing, and say so."""

from collections.abc import AsyncIterator

import httpx
import pytest

from app.models import Memory
from app.recall import evidence
from app.recall.modes import as_of_hits
from tests.conftest import ALICE_KEY, auth, running_client, test_settings
from tests.recall.test_recall import _wait_embedded

H = auth(ALICE_KEY)
FACTS = [
    "Alice is allergic to peanuts",
    "Alice's daughter plays the violin in the school orchestra",
    "Alice prefers window seats on long flights",
    "hey, I am Marta, UX designer at a small fintech in Lisbon",
]
OFF_TOPIC = [
    "What is the capital of Peru?",
    "How do I reverse a linked list in Python?",
    "When did the Berlin Wall fall?",
    "How many players are on a rugby union team?",
]


@pytest.fixture(scope="module")
async def small_store(
    falkordb_url: str, tmp_path_factory
) -> AsyncIterator[tuple[httpx.AsyncClient, list[str]]]:
    settings = test_settings(
        tmp_path_factory.mktemp("relevance"),
        falkordb_url=falkordb_url,
        embedding_provider="local",
        embedding_dimensions=None,
        workers=2,
        jobs_sweep_s=1,
    )
    async with running_client(settings) as client:
        session = {"session_id": "chat-1"}
        memories = [{"content": fact, "source": session} for fact in FACTS]
        stored = await client.post("/memory/batch", json={"memories": memories}, headers=H)
        await _wait_embedded(client)
        yield client, stored.json()["memory_ids"]


@pytest.mark.parametrize("question", OFF_TOPIC)
async def test_an_unrelated_question_gets_nothing_and_is_told_so(small_store, question):
    client, _ = small_store
    for method in ("GET", "POST"):
        if method == "GET":
            response = await client.get("/recall", params={"query": question}, headers=H)
        else:
            response = await client.post("/recall", json={"query": question}, headers=H)
        body = response.json()
        assert body["results"] == [] and body["relevant"] is False, (method, body["results"])
        assert body["score_filter"]["filtered_count"] > 0


@pytest.mark.parametrize("question", OFF_TOPIC)
async def test_an_unrelated_question_puts_nothing_into_the_prompt(small_store, question):
    client, _ = small_store
    body = {"query": question, "include_core": False}
    packed = (await client.post("/recall/context", json=body, headers=H)).json()
    assert packed["memory_ids"] == []


async def test_a_related_question_is_answered_and_relevant(small_store):
    client, ids = small_store
    body = (
        await client.get("/recall", params={"query": "What is Alice allergic to?"}, headers=H)
    ).json()
    assert body["relevant"] is True and body["results"][0]["id"] == ids[0]


async def test_floor_zero_turns_the_floor_and_the_gate_off(small_store):
    client, ids = small_store
    query = {"query": OFF_TOPIC[0], "relevance_floor": 0}
    body = (await client.get("/recall", params=query, headers=H)).json()
    assert body["relevant"] is True and {r["id"] for r in body["results"]} == set(ids)


def _memory(memory_id: str) -> Memory:
    stamp = "2024-01-01T00:00:00+00:00"
    return Memory(
        id=memory_id,
        user_id="u",
        content=memory_id,
        content_hash=memory_id,
        timestamp=stamp,
        created_at=stamp,
        updated_at=stamp,
    )


def _evidence(similarity, terms, query_terms=4):
    return evidence.Evidence(similarity, terms, query_terms)


def test_the_floor_asks_for_a_term_in_common_or_a_close_meaning():
    limits = evidence.Thresholds(floor=0.25, gate=0.35)
    assert evidence.passes_floor(_evidence(0.1, 1), limits)
    assert evidence.passes_floor(_evidence(0.3, 0), limits)
    assert not evidence.passes_floor(_evidence(0.2, 0), limits)
    assert not evidence.passes_floor(_evidence(None, 0), limits)


def test_the_gate_asks_for_a_strong_match():
    limits = evidence.Thresholds(floor=0.25, gate=0.35)
    assert evidence.is_strong(_evidence(0.4, 0), limits)
    assert evidence.is_strong(_evidence(0.1, 2), limits)
    assert evidence.is_strong(_evidence(0.1, 1, query_terms=1), limits)  # its only term
    assert not evidence.is_strong(_evidence(0.3, 1), limits)
    assert evidence.is_strong(_evidence(None, 1), limits)  # no vector: words decide
    off = evidence.Thresholds(floor=0.0, gate=0.35)
    assert evidence.is_strong(_evidence(0.0, 0), off) and evidence.passes_floor(
        _evidence(None, 0), off
    )


async def test_nothing_the_user_stated_is_hidden_from_a_question_about_them(small_store):
    client, ids = small_store
    body = (await client.get("/recall", params={"query": "what's my name?"}, headers=H)).json()
    assert body["relevant"] is True
    assert body["results"][0]["id"] == ids[3]


def test_about_the_user_a_memory_about_the_user_needs_less_similarity():
    limits = evidence.Thresholds(floor=0.25, gate=0.4)
    mine = evidence.Evidence(similarity=0.2, terms=0, query_terms=2, about_asker=True)
    theirs = evidence.Evidence(similarity=0.2, terms=0, query_terms=2)
    assert evidence.passes_floor(mine, limits) and evidence.is_strong(mine, limits)
    assert not evidence.passes_floor(theirs, limits) and not evidence.is_strong(theirs, limits)
    too_far = evidence.Evidence(similarity=0.1, terms=0, query_terms=2, about_asker=True)
    assert not evidence.passes_floor(too_far, limits) and not evidence.is_strong(too_far, limits)


def test_about_the_user_a_word_the_user_said_in_common_is_strong():
    """ "What was my previous occupation?" — "I've used Trello in my previous role …": one word
    in common and little similarity; the user's own turn still answers a question about them."""
    limits = evidence.Thresholds(floor=0.25, gate=0.4)
    mine = evidence.Evidence(similarity=0.1, terms=1, query_terms=2, about_asker=True)
    theirs = evidence.Evidence(similarity=0.1, terms=1, query_terms=2)
    assert evidence.is_strong(mine, limits)
    assert evidence.passes_floor(theirs, limits) and not evidence.is_strong(theirs, limits)


def test_as_of_scores_a_zero_keyword_score_without_dividing_by_it():
    a, b = _memory("a"), _memory("b")
    assert [hit.scored.score for hit in as_of_hits([(a, 0.0), (b, 0.0)])] == [0.0, 0.0]
    scored = as_of_hits([(a, 2.0), (b, 1.0)])
    assert [hit.scored.score for hit in scored] == [1.0, 0.5]


@pytest.mark.parametrize(
    "hint",
    [
        {"context_types": "Context,Fact,Preference"},
        {"expand_relations": "true"},
        {"expand_entities": "true"},
        {"language": "python"},
    ],
)
async def test_no_boost_or_expansion_admits_an_unrelated_memory(small_store, hint):
    client, _ = small_store
    query = {"query": OFF_TOPIC[0], **hint}
    body = (await client.get("/recall", params=query, headers=H)).json()
    assert body["results"] == [] and body["relevant"] is False
