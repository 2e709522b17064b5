"""Every /recall input is bounded, and one maximal request does not hold the service."""

import asyncio
import time

import pytest

from app.recall.names import MAX_NAMES, query_names
from app.recall.param_readers import (
    MAX_IDS,
    MAX_ITEM_CHARS,
    MAX_ITEMS,
    MAX_QUERIES,
    MAX_QUERY_CHARS,
)
from tests.conftest import ALICE_KEY, auth
from tests.recall.test_recall import recall_app  # noqa: F401  (the module's fixture)

H = auth(ALICE_KEY)
HEALTH_BOUND_S = 1.0  # generous: an unbounded query held /health for seconds


def _capitalised_words(chars: int) -> str:
    """The worst case for finding names: every word capitalised, none opening a sentence."""
    words, size, n = [], 0, 0
    while size < chars - 12:
        word = "Name" + "".join(chr(97 + int(d)) for d in str(n))
        words.append(word)
        size += len(word) + 1
        n += 1
    return ("what about " + " ".join(words))[:chars]


async def _both(client, params: dict) -> list:
    get = await client.get("/recall", params=params, headers=H)
    post = await client.post("/recall", json=params, headers=H)
    return [get, post]


async def test_a_query_over_the_limit_is_refused_naming_the_limit(recall_app):  # noqa: F811
    client, _ = recall_app
    for response in await _both(client, {"query": "x" * (MAX_QUERY_CHARS + 1)}):
        assert response.status_code == 413
        assert str(MAX_QUERY_CHARS) in response.json()["message"]


@pytest.mark.parametrize(
    ("params", "limit"),
    [
        ({"tags": [f"t{i}" for i in range(MAX_ITEMS + 1)]}, MAX_ITEMS),
        ({"tags": ["x" * (MAX_ITEM_CHARS + 1)]}, MAX_ITEM_CHARS),
        ({"priority_ids": [f"id-{i}" for i in range(MAX_IDS + 1)]}, MAX_IDS),
        ({"queries": [f"q{i}" for i in range(MAX_QUERIES + 1)]}, MAX_QUERIES),
        ({"time_query": "y" * (MAX_ITEM_CHARS + 1)}, MAX_ITEM_CHARS),
        ({"labels": {"k": "v" * MAX_ITEM_CHARS}}, MAX_ITEM_CHARS),
    ],
)
async def test_lists_and_texts_over_their_limits_are_refused(recall_app, params, limit):  # noqa: F811
    client, _ = recall_app
    post = await client.post("/recall", json={"query": "tea", **params}, headers=H)
    assert post.status_code == 400, post.text
    assert str(limit) in post.json()["message"]


def test_names_of_a_long_query_are_found_in_one_pass_and_capped():
    names = query_names(_capitalised_words(MAX_QUERY_CHARS))
    assert len(names) == MAX_NAMES and names[0] == "Namea"


async def test_a_maximal_query_completes_while_health_answers(recall_app):  # noqa: F811
    client, _ = recall_app
    query = _capitalised_words(MAX_QUERY_CHARS)
    assert len(query) == MAX_QUERY_CHARS
    task = asyncio.create_task(client.get("/recall", params={"query": query}, headers=H))
    waits = []
    while not task.done():
        started = time.perf_counter()
        health = await client.get("/health")
        waits.append(time.perf_counter() - started)
        assert health.status_code == 200
        await asyncio.sleep(0.005)
    assert (await task).status_code == 200
    assert max(waits) < HEALTH_BOUND_S, waits
