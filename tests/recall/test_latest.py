"""A question that asks for the value now ranks the latest of its answers first."""

import httpx
import pytest

from app.recall.asking import asks_for_now
from tests.conftest import ALICE_KEY, auth, running_client, test_settings
from tests.recall.test_recall import _wait_embedded

H = auth(ALICE_KEY)
WEIGHT = 0.5
EARLIER = {
    "content": "I live in Prague, in a flat near the river",
    "timestamp": "2024-01-10T09:00:00Z",
}
LATER = {
    "content": "I moved to Berlin last month and I live near a park",
    "timestamp": "2024-06-02T09:00:00Z",
}


@pytest.mark.parametrize(
    ("query", "now"),
    [
        ("Where do I live now?", True),
        ("What am I currently reading?", True),
        ("How many plants have I bought so far?", True),
        ("Do I still play the cello?", True),
        ("Where did I live in 2019?", False),
        ("What is the capital of Peru?", False),
    ],
)
def test_a_question_asks_for_the_value_now(query: str, now: bool):
    assert asks_for_now(query) is now


@pytest.fixture(scope="module")
async def client(falkordb_url: str, tmp_path_factory):
    settings = test_settings(
        tmp_path_factory.mktemp("latest"),
        falkordb_url=falkordb_url,
        workers=2,
        jobs_sweep_s=1,
        recall_weight_latest=WEIGHT,
    )
    async with running_client(settings) as app_client:
        for body in (EARLIER, LATER):
            stored = await app_client.post("/memory", json=body, headers=H)
            assert stored.status_code == 201, stored.text
        await _wait_embedded(app_client)
        yield app_client


async def test_the_latest_answer_gains_the_whole_lift_and_the_earliest_none(
    client: httpx.AsyncClient,
):
    body = (await client.get("/recall", params={"query": "Where do I live now?"}, headers=H)).json()
    contents = [item["memory"]["content"] for item in body["results"]]
    assert contents[:2] == [LATER["content"], EARLIER["content"]]
    lifts = [item["score_components"]["latest"] for item in body["results"][:2]]
    assert lifts == [pytest.approx(WEIGHT), 0.0]


async def test_a_question_not_about_now_gets_no_lift(client: httpx.AsyncClient):
    body = (await client.get("/recall", params={"query": "Where do I live?"}, headers=H)).json()
    assert body["results"] and all("latest" not in i["score_components"] for i in body["results"])
