"""A question that names what no memory of the caller mentions gets nothing (app/recall/unsaid.py),
even when memories about something close would pass the gate."""

import pytest

from app.recall.names import query_names
from tests.conftest import ALICE_KEY, BOB_KEY, auth, running_client, test_settings

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
THERAPY = [
    "I see my therapist Dr. Smith every two weeks on Thursdays",
    "Dr. Smith suggested I keep a journal of what I eat",
]


@pytest.fixture
async def client(falkordb_url, tmp_path):
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as app_client:
        for content in THERAPY:
            response = await app_client.post("/memory", json={"content": content}, headers=ALICE)
            assert response.status_code == 201, response.text
        yield app_client


async def ask(client, query: str, headers=ALICE, **params) -> dict:
    response = await client.get("/recall", params={"query": query, **params}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_name_never_mentioned_gets_nothing_and_says_which(client):
    said = await ask(client, "How often do I see Dr. Smith?")
    assert said["relevant"] is True and said["count"] == 2
    assert "never_mentioned" not in said["score_filter"]
    unsaid = await ask(client, "How often do I see Dr. Johnson?")
    assert unsaid["relevant"] is False and unsaid["results"] == []
    assert unsaid["score_filter"]["never_mentioned"] == ["Johnson"]
    assert unsaid["score_filter"]["filtered_count"] >= 2
    shown = await ask(client, "How often do I see Dr. Johnson?", relevance_floor=0)
    assert shown["count"] == 2  # the floor off shows every candidate, as asked


async def test_another_users_or_agents_mention_does_not_count(client):
    johnson = {"content": "Dr. Johnson moved his practice to Leeds"}
    assert (await client.post("/memory", json=johnson, headers=BOB)).status_code == 201
    assert (await ask(client, "How often do I see Dr. Johnson?"))["relevant"] is False
    own = auth(ALICE_KEY, agent="agent-a")
    assert (await client.post("/memory", json=johnson, headers=own)).status_code == 201
    other_agent = auth(ALICE_KEY, agent="agent-b")
    assert (await ask(client, "How often do I see Dr. Johnson?", other_agent))["relevant"] is False
    assert (await ask(client, "How often do I see Dr. Johnson?", own))["relevant"] is True


async def test_a_question_in_a_language_that_capitalises_nouns_is_left_to_the_gate(client):
    german = {"content": "Mein Wagen ist rot und steht vor dem Haus"}
    assert (await client.post("/memory", json=german, headers=ALICE)).status_code == 201
    body = await ask(client, "Welche Farbe hat mein Wagen vor dem Auto Haus?")
    assert "never_mentioned" not in body["score_filter"] and body["relevant"] is True


def test_a_title_does_not_hide_the_name_after_it():
    assert query_names("How often do I see Dr. Johnson?") == ["Dr", "Johnson"]
    assert query_names("I met Dr. Smith. Then what?") == ["Dr", "Smith"]


async def test_turned_off_the_gate_decides_as_before(falkordb_url, tmp_path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, recall_unsaid_names=False)
    async with running_client(settings) as app_client:
        for content in THERAPY:
            await app_client.post("/memory", json={"content": content}, headers=ALICE)
        body = await ask(app_client, "How often do I see Dr. Johnson?")
        assert body["relevant"] is True and body["count"] == 2
        assert "never_mentioned" not in body["score_filter"]


async def test_a_question_that_asks_to_infer_is_left_to_the_gate(client):
    body = await ask(client, "Would I likely see Dr. Johnson every two weeks?")
    assert "never_mentioned" not in body["score_filter"] and body["count"] == 2


async def test_without_the_full_text_index_the_gate_decides(client):
    await client.app.state.stores.graph.query("CALL db.idx.fulltext.drop('Memory')")
    body = await ask(client, "How often do I see Dr. Johnson?")
    assert body["relevant"] is True and "never_mentioned" not in body["score_filter"]


async def test_a_name_of_several_words_is_said_when_one_of_its_words_is(client):
    trip = {"content": "We camped five nights in Yellowstone, my first trip across the States"}
    assert (await client.post("/memory", json=trip, headers=ALICE)).status_code == 201
    body = await ask(client, "How many nights did I camp in the United States?")
    assert "never_mentioned" not in body["score_filter"] and body["relevant"] is True
    no_title = await ask(client, "How often do I see Dr Johnson?")
    assert no_title["score_filter"]["never_mentioned"] == ["Johnson"]


async def test_a_brand_with_a_capital_inside_is_a_name_too(client):
    case = {"content": "I ordered a leather case for my phone and it took a week to arrive"}
    assert (await client.post("/memory", json=case, headers=ALICE)).status_code == 201
    unsaid = await ask(client, "How long did the case for my iPad take to arrive?")
    assert unsaid["score_filter"]["never_mentioned"] == ["iPad"] and unsaid["results"] == []
    tablet = {"content": "my new ipad needs a case too"}
    assert (await client.post("/memory", json=tablet, headers=ALICE)).status_code == 201
    said = await ask(client, "How long did the case for my iPad take to arrive?")
    assert "never_mentioned" not in said["score_filter"] and said["relevant"] is True
