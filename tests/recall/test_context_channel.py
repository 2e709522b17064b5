"""Conversation turns: linked in order on write, and recalled together."""

import httpx

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


async def test_the_turn_next_to_a_match_is_recalled(app_client: httpx.AsyncClient):
    turns = [
        {"content": "What instrument are you learning, Maya?", "source": {"session_id": "s-music"}},
        {"content": "The cello, since last spring", "source": {"session_id": "s-music"}},
        {
            "content": "Completely different topic about gardening",
            "source": {"session_id": "s-garden"},
        },
    ]
    ids = (await app_client.post("/memory/batch", json={"memories": turns}, headers=H)).json()[
        "memory_ids"
    ]
    body = (
        await app_client.get(
            "/recall", params={"query": "Maya instrument learning", "limit": 3}, headers=H
        )
    ).json()
    found = {r["id"]: r for r in body["results"]}
    assert ids[0] in found and ids[1] in found
    assert found[ids[1]]["score_components"]["match"] > 0
    without = (
        await app_client.get(
            "/recall",
            params={"query": "Maya instrument learning", "limit": 3, "channels": "bm25"},
            headers=H,
        )
    ).json()
    assert ids[1] not in {r["id"] for r in without["results"]}
