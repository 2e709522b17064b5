"""Recall without a query (browse) in the order asked for: `sort=time_asc|time_desc` over the
whole scope, not over the most important page. (Equal times in the order they were stored:
tests/remember/test_transcript.py, the turns of one call.)"""

import httpx

from tests.conftest import ALICE_KEY, auth

ALICE = auth(ALICE_KEY)
STORED = [  # (content, timestamp, importance)
    ("The oldest note, barely important.", "2026-01-01T10:00:00Z", 0.1),
    ("The newest note, quite important.", "2026-03-01T10:00:00Z", 0.6),
    ("The middle note, very important.", "2026-02-01T10:00:00Z", 0.9),
]


async def browse(client: httpx.AsyncClient, tag: str, **extra: object) -> list[str]:
    body = {"tags": [tag], "limit": 10, **extra}
    answer = await client.post("/recall", json=body, headers=ALICE)
    assert answer.status_code == 200, answer.text
    return [r["memory"]["content"] for r in answer.json()["results"]]


async def test_browse_follows_the_sort_asked_for(app_client: httpx.AsyncClient):
    tag = "browse-order"
    for content, timestamp, importance in STORED:
        body = {"content": content, "timestamp": timestamp, "importance": importance, "tags": [tag]}
        assert (await app_client.post("/memory", json=body, headers=ALICE)).status_code == 201
    oldest, newest, middle = (content for content, _, _ in STORED)

    assert await browse(app_client, tag) == [middle, newest, oldest]  # most important first
    assert await browse(app_client, tag, sort="time_asc") == [oldest, middle, newest]
    assert await browse(app_client, tag, sort="time_desc") == [newest, middle, oldest]
    assert await browse(app_client, tag, sort="time_asc", limit=1) == [oldest]
