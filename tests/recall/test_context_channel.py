"""Conversation turns: linked in order on write, and recalled together."""

from dataclasses import replace

import httpx

from app.recall.candidates import _dense_query
from app.recall.tuning import default_recall_config
from tests.conftest import ALICE_KEY, auth

H = auth(ALICE_KEY)
SESSION = {"session_id": "chat-42"}


async def test_turns_of_a_session_are_linked_in_order(app_client: httpx.AsyncClient):
    turns = [
        {"content": "Where did you go on Saturday?", "source": {**SESSION, "message_id": "1"}},
        {"content": "To the pottery workshop downtown", "source": {**SESSION, "message_id": "2"}},
    ]
    first = (await app_client.post("/memory/batch", json={"memories": turns}, headers=H)).json()
    third = await app_client.post(
        "/memory",
        json={"content": "It was great fun", "source": {**SESSION, "message_id": "3"}},
        headers=H,
    )
    other = await app_client.post(
        "/memory", json={"content": "Unrelated", "source": {"session_id": "x"}}, headers=H
    )
    ids = [*first["memory_ids"], third.json()["memory_id"]]

    graph = app_client.app.state.stores.graph
    rows = await graph.ro_query(
        "MATCH (a:Memory)-[:PRECEDED_BY]->(b:Memory) WHERE a.id IN $ids RETURN a.id, b.id",
        {"ids": ids},
    )
    assert sorted(rows) == sorted([[ids[1], ids[0]], [ids[2], ids[1]]])
    memory = (await app_client.get(f"/memory/{ids[0]}", headers=H)).json()["memory"]
    assert memory["session_id"] == "chat-42"
    assert other.json()["memory_id"] not in str(rows)


async def test_a_turn_next_to_a_match_is_lifted_but_never_admitted(
    app_client: httpx.AsyncClient,
):
    session = {"session_id": "s-music"}
    turns = [
        {"content": "What instrument are you learning, Maya?", "source": session},
        {"content": "The cello, since last spring; Maya loves it", "source": session},
        {"content": "That is wonderful to hear", "source": session},
        {"content": "Completely different topic about gardening", "source": {"session_id": "s-g"}},
    ]
    ids = (await app_client.post("/memory/batch", json={"memories": turns}, headers=H)).json()[
        "memory_ids"
    ]
    query = {"query": "Maya instrument learning", "limit": 5}
    body = (await app_client.get("/recall", params=query, headers=H)).json()
    found = {r["id"]: r for r in body["results"]}
    assert ids[0] in found and ids[1] in found
    assert found[ids[1]]["score_components"]["context"] > 0  # lifted by the turn before it
    assert ids[2] not in found  # next to a match, but shares nothing with the query
    without = (
        await app_client.get("/recall", params={**query, "channels": "dense,bm25"}, headers=H)
    ).json()
    unlifted = next(r for r in without["results"] if r["id"] == ids[1])
    assert unlifted["score"] < found[ids[1]]["score"]


async def test_a_named_speakers_turn_is_favoured(app_client: httpx.AsyncClient):
    session = {"session_id": "s-names"}
    turns = [
        {"content": "Melanie: What have you been researching lately, Caroline?", "source": session},
        {"content": "Caroline: Adoption agencies, mostly", "source": session},
        {"content": "Melanie: I researched pottery classes", "source": {"session_id": "s-other"}},
    ]
    ids = (await app_client.post("/memory/batch", json={"memories": turns}, headers=H)).json()[
        "memory_ids"
    ]
    body = (
        await app_client.get(
            "/recall", params={"query": "What did Caroline research?", "limit": 3}, headers=H
        )
    ).json()
    found = {r["id"]: r["score_components"] for r in body["results"]}
    assert found[ids[1]]["name"] == 0.4  # starts with the named person: the speaker
    assert found[ids[0]]["name"] == 0.2  # mentions her
    assert found[ids[2]]["name"] == 0.0
    assert found[ids[1]]["context"] > 0  # the turn after a match
    assert body["results"][0]["id"] == ids[1]


def test_the_dense_query_leaves_the_names_out():
    config = default_recall_config()
    assert _dense_query("What did Caroline research?", config) == "What did research?"
    assert _dense_query("what did she research?", config) is None  # no name: as is
    assert _dense_query("Caroline's?", config) is None  # nothing else: as is
    off = replace(config, dense_without_names=False)
    assert _dense_query("What did Caroline research?", off) is None


async def test_neighbouring_turns_obey_the_request_filters(app_client: httpx.AsyncClient):
    turns = [
        {
            "content": "Which bakery sells the rye loaf?",
            "tags": ["food"],
            "labels": {"topic": "bread"},
            "source": {"session_id": "s-bread"},
        },
        {
            "content": "The one on Elm Street; the loaf sells out by noon",
            "tags": ["places"],
            "type": "Fact",
            "source": {"session_id": "s-bread"},
        },
    ]
    ids = (await app_client.post("/memory/batch", json={"memories": turns}, headers=H)).json()[
        "memory_ids"
    ]
    query = {"query": "bakery rye loaf", "limit": 5}
    unfiltered = (await app_client.get("/recall", params=query, headers=H)).json()
    assert ids[1] in [r["id"] for r in unfiltered["results"]]
    for narrowing in (
        {"tags": "food"},
        {"exclude_tags": "places"},
        {"type": "Context"},
        {"labels": "topic=bread"},
    ):
        body = (await app_client.get("/recall", params={**query, **narrowing}, headers=H)).json()
        found = [r["id"] for r in body["results"]]
        assert ids[0] in found and ids[1] not in found, narrowing
