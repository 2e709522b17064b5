"""POST /remember's contract: 202 at once, clear 4xx for bad input, limits, job polling by owner."""

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client, test_settings

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
TURN = {"role": "user", "content": "I live in Prague."}


@pytest.fixture(scope="module")
async def client(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[httpx.AsyncClient]:
    settings = test_settings(
        tmp_path_factory.mktemp("remember"),
        falkordb_url=falkordb_url,
        remember_max_messages=5,
        remember_max_chars=200,
        remember_rate_per_minute=1000,
    )
    async with running_client(settings) as client:
        yield client


def call(**overrides) -> dict:
    return {"messages": [TURN], "session_id": "s1", **overrides}


async def test_acknowledges_with_a_job_the_owner_can_poll(client: httpx.AsyncClient) -> None:
    response = await client.post("/remember", json=call(), headers=ALICE)
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["status"] == "accepted" and body["messages"] == 1
    job_id = body["job_id"]
    polled = await client.get(f"/remember/jobs/{job_id}", headers=ALICE)
    assert polled.status_code == 200
    assert polled.json()["state"] == "queued"  # no workers in this module
    assert (await client.get(f"/remember/jobs/{job_id}", headers=BOB)).status_code == 404


BAD_CALLS = [
    ({"session_id": "s1"}, "'messages' is required"),
    (call(messages=[]), "messages"),
    (call(messages=[{"role": "user", "content": "   "}]), "'messages.0.content'"),
    (call(messages=[{"role": "narrator", "content": "hi"}]), "'messages.0.role'"),
    (call(messages=[{"role": "user"}]), "'messages.0.content' is required"),
    (call(messages=[{**TURN, "timestamp": "yesterday"}]), "'messages.0.timestamp'"),
    ({"messages": [TURN]}, "'session_id' is required"),
    (call(session_id=""), "'session_id'"),
    (call(role="system"), "'role'"),
    (call(agent_id="bad agent!"), "'agent_id'"),
    (call(labels={"k": {"nested": 1}}), "labels"),
    (call(source={"chat_id": "c", "secret": 1}), "'source.secret'"),
]


@pytest.mark.parametrize(("body", "named"), BAD_CALLS)
async def test_bad_input_is_a_400_naming_the_field(
    client: httpx.AsyncClient, body: dict, named: str
) -> None:
    response = await client.post("/remember", json=body, headers=ALICE)
    assert response.status_code == 400, response.text
    assert named in response.json()["message"]


async def test_oversized_calls_are_413_with_the_limit(client: httpx.AsyncClient) -> None:
    too_many = await client.post("/remember", json=call(messages=[TURN] * 6), headers=ALICE)
    assert too_many.status_code == 413
    assert "at most 5" in too_many.json()["message"]
    long = {"role": "user", "content": "x" * 201}
    too_long = await client.post("/remember", json=call(messages=[long]), headers=ALICE)
    assert too_long.status_code == 413
    assert "at most 200 characters" in too_long.json()["message"]


async def test_agent_outside_the_callers_scope_is_403(client: httpx.AsyncClient) -> None:
    response = await client.post("/remember", json=call(agent_id="cursor"), headers=auth(AGENT_KEY))
    assert response.status_code == 403
    allowed = await client.post(
        "/remember", json=call(agent_id="openwebui:ava"), headers=auth(AGENT_KEY)
    )
    assert allowed.status_code == 202


async def test_rate_limit_is_429_with_retry_after(falkordb_url: str, tmp_path: Path) -> None:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, remember_rate_per_minute=2)
    async with running_client(settings) as client:
        codes = [(await client.post("/remember", json=call(), headers=ALICE)) for _ in range(3)]
        assert [r.status_code for r in codes] == [202, 202, 429]
        assert 1 <= int(codes[2].headers["Retry-After"]) <= 61
        assert "at most 2 per minute" in codes[2].json()["message"]
        # Another user has a window of their own.
        assert (await client.post("/remember", json=call(), headers=BOB)).status_code == 202
