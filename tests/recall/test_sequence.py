"""Conversation order inferred for memories sent without a session (app/memories/sequence.py)."""

import httpx

from tests.conftest import ALICE_KEY, BOB_KEY, auth

H, BOB = auth(ALICE_KEY), auth(BOB_KEY)
LINKS = """
MATCH (a:Memory)-[r:PRECEDED_BY]->(b:Memory) WHERE a.id IN $ids AND r.session = true
RETURN a.id, b.id
"""


async def _links(client: httpx.AsyncClient, ids: list[str]) -> list[list[str]]:
    rows = await client.app.state.stores.graph.ro_query(LINKS, {"ids": ids})
    return sorted(rows)


def _turn(content: str, minute: int, **extra) -> dict:
    """A chat turn tagged by its test's letter (so that tests do not continue each other's)."""
    tag = "chat-" + content.split()[1].lower()
    return {
        "content": content,
        "timestamp": f"2024-05-08T13:{minute:02d}:00Z",
        "tags": [tag],
        **extra,
    }


async def _batch(client, turns, headers=H) -> list[str]:
    response = await client.post("/memory/batch", json={"memories": turns}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_ids"]


async def test_a_batch_without_sessions_is_a_sequence_in_write_order(app_client):
    ids = await _batch(
        app_client, [_turn("Seq A one", 1), _turn("Seq A two", 2), _turn("Seq A three", 3)]
    )
    assert await _links(app_client, ids) == sorted([[ids[1], ids[0]], [ids[2], ids[1]]])


async def test_other_tags_a_conversation_label_or_a_gap_start_a_new_sequence(app_client):
    ids = await _batch(
        app_client,
        [
            _turn("Seq B one", 1, labels={"session": "1", "message": "a"}),
            _turn("Seq B two", 2, labels={"session": "1", "message": "b"}),  # linked: same session
            _turn("Seq B three", 3, labels={"session": "2"}),  # another conversation label
            _turn("Seq B four", 4, labels={"session": "2"}, tags=["other"]),  # other tags
            {
                **_turn("Seq B five", 4, labels={"session": "2"}, tags=["other"]),
                "timestamp": "2024-05-08T15:00:00Z",
            },  # two hours later
        ],
    )
    assert await _links(app_client, ids) == [[ids[1], ids[0]]]


async def test_consecutive_writes_continue_a_sequence(app_client):
    first = await _batch(app_client, [_turn("Seq C one", 10), _turn("Seq C two", 11)])
    single = await app_client.post("/memory", json=_turn("Seq C three", 12), headers=H)
    third = single.json()["memory_id"]
    assert [third, first[1]] in await _links(app_client, [third])


async def test_sessions_are_not_mixed_with_inferred_sequences(app_client):
    ids = await _batch(
        app_client,
        [
            _turn("Seq D one", 20),
            _turn("Seq D two", 21, source={"session_id": "s-d"}),
            _turn("Seq D three", 22),
        ],
    )
    assert await _links(app_client, ids) == [[ids[2], ids[0]]]


async def test_a_sequence_never_crosses_users(app_client):
    mine = await _batch(app_client, [_turn("Seq E one", 30)])
    theirs = await _batch(app_client, [_turn("Seq E two", 31)], headers=BOB)
    assert await _links(app_client, mine + theirs) == []


async def test_a_neighbour_in_an_inferred_sequence_is_lifted(app_client):
    ids = await _batch(
        app_client,
        [
            _turn("Seq F: which bakery sells the sourdough rye loaf?", 40),
            _turn("Seq F: the one on Elm Street; the loaf sells out by noon", 41),
        ],
    )
    body = (
        await app_client.get("/recall", params={"query": "sourdough rye loaf bakery"}, headers=H)
    ).json()
    found = {r["id"]: r for r in body["results"]}
    assert found[ids[1]]["score_components"].get("context", 0) > 0


async def test_interleaved_sequences_each_follow_only_the_latest_earlier_write(app_client):
    earlier = await _batch(
        app_client,
        [_turn("Seq G one", 50), _turn("Seq H one", 50), _turn("Seq G two", 51)],
    )
    later = await _batch(
        app_client,
        [_turn("Seq G three", 52), _turn("Seq H two", 52), _turn("Seq G four", 53)],
    )
    # "Seq G four" starts a run of its own (an H turn came between), and follows the latest G
    # memory of an earlier write, not "Seq G three" of its own.
    assert await _links(app_client, later) == sorted(
        [[later[0], earlier[2]], [later[1], earlier[1]], [later[2], earlier[2]]]
    )


async def test_a_session_turn_follows_only_the_latest_earlier_turn(app_client):
    session = {"source": {"session_id": "s-i"}}
    earlier = await _batch(
        app_client, [_turn("Seq I one", 54, **session), _turn("Seq I two", 55, **session)]
    )
    later = await _batch(
        app_client, [_turn("Seq I three", 56, **session), _turn("Seq I four", 57, **session)]
    )
    assert await _links(app_client, later) == sorted([[later[0], earlier[1]], [later[1], later[0]]])
