"""Attributes end to end: supersession rules, repeats that reinforce, tenancy, and the LLM path's
fallback, on the real stores, spaCy and the local embedder (the LLM is the fake OpenAI server)."""

import json
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.models import to_iso
from tests.conftest import ALICE_KEY, BOB_KEY, auth, running_client
from tests.fake_openai import FakeOpenAI, FakeOpenAIConfig
from tests.memories.test_embedding_jobs import wait_until
from tests.remember.test_remember_flow import flow_settings

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
START = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """Sessions are not consolidated while the test runs."""
    settings = flow_settings(tmp_path, falkordb_url, session_idle_seconds=3600)
    async with running_client(settings) as client:
        yield client


async def say(
    client: httpx.AsyncClient, text: str, day: int, headers: dict[str, str] = ALICE
) -> dict[str, Any]:
    """One user turn on `day`, in a session of its own; the finished job's result."""
    message = {"role": "user", "content": text, "timestamp": to_iso(START + timedelta(days=day))}
    body = {"messages": [message], "session_id": f"day-{day}-{len(text)}"}
    accepted = await client.post("/remember", json=body, headers=headers)
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]

    async def finished() -> bool:
        job = (await client.get(f"/remember/jobs/{job_id}", headers=headers)).json()
        return job["state"] in ("done", "dead")

    await wait_until(finished, timeout=60)
    job = (await client.get(f"/remember/jobs/{job_id}", headers=headers)).json()
    assert job["state"] == "done", job
    return job["result"]


async def stored(client: httpx.AsyncClient, ids: list[str], headers=ALICE) -> list[dict]:
    return [(await client.get(f"/memory/{i}", headers=headers)).json()["memory"] for i in ids]


async def current(client: httpx.AsyncClient, ids: list[str], headers=ALICE) -> list[str]:
    return [m["content"] for m in await stored(client, ids, headers) if m["t_invalid"] is None]


async def test_a_single_valued_attribute_is_superseded_by_a_new_value(
    client: httpx.AsyncClient,
) -> None:
    first = await say(client, "I live in Manchester, been here about six years", 0)
    moved = await say(client, "Big news - we've moved from Manchester to Bristol!", 40)

    old, new = first["stored"][0], moved["stored"][0]
    assert moved["superseded"] == [{"old": old, "new": new}]
    (before,) = await stored(client, [old])
    assert before["content"] == "User lives in Manchester." and before["t_invalid"] is not None
    assert before["metadata"]["remember"]["attribute"] == "residence"
    assert before["metadata"]["remember"]["cardinality"] == "single"
    history = (await client.get(f"/memory/{old}/history", headers=ALICE)).json()
    assert history["revisions"][0].get("t_invalid") is None  # the open version is kept
    query = {"relationship_types": "INVALIDATED_BY"}
    related = (await client.get(f"/memories/{old}/related", params=query, headers=ALICE)).json()
    assert [r["id"] for r in related["related_memories"]] == [new]


async def test_a_corrected_age_and_a_new_job_replace_the_old_ones(
    client: httpx.AsyncClient,
) -> None:
    first = await say(client, "I'm 41 — no wait, 42. I work at Deliveroo as a backend engineer", 0)
    assert await current(client, first["stored"]) == [
        "User is 42 years old.",
        "User works at Deliveroo.",
        "User works as a backend engineer.",
    ]
    change = await say(client, "I just started as a staff engineer at Monzo!!", 30)
    assert len(change["superseded"]) == 2  # the title and the employer, not the age
    assert await current(client, first["stored"]) == ["User is 42 years old."]


async def test_a_multi_valued_attribute_adds_and_ends_only_explicitly(
    client: httpx.AsyncClient,
) -> None:
    dog = await say(client, "I have a beagle called Biscuit", 0)
    cat = await say(client, "we adopted a kitten, a tabby called Pickle", 10)
    assert cat["superseded"] == []  # a second pet adds
    assert await current(client, dog["stored"] + cat["stored"]) == [
        "User has a beagle named Biscuit.",
        "User adopted a kitten named Pickle.",
    ]

    died = await say(client, "Biscuit passed away on Sunday.", 50)
    assert [s["old"] for s in died["superseded"]] == dog["stored"]
    assert await current(client, cat["stored"] + died["stored"]) == [
        "User adopted a kitten named Pickle.",
        "Biscuit passed away on 19 April 2026.",
    ]


@pytest.mark.parametrize(
    ("before", "after", "ending"),
    [
        ("I smoke about ten a day", "I don't smoke any more!", "User no longer smokes."),
        ("I do yoga on tuesdays", "I stopped doing yoga", "User stopped doing yoga."),
        ("I'm vegan", "I'm not vegan anymore", "User is no longer vegan."),
        ("my girlfriend Sophie is lovely", "Sophie and I broke up", "User and Sophie broke up."),
        ("I drive a 2012 Honda Civic", "finally sold the Civic!!", "User sold the Civic."),
    ],
)
async def test_an_explicit_ending_ends_the_fact(
    client: httpx.AsyncClient, before: str, after: str, ending: str
) -> None:
    first = await say(client, before, 0)
    ended = await say(client, after, 20)
    assert await current(client, first["stored"]) == []
    assert await current(client, ended["stored"]) == [ending]


async def test_a_tool_switch_supersedes_only_that_area(client: httpx.AsyncClient) -> None:
    stack = await say(client, "our stack is Django + MySQL", 0)
    await say(client, "we moved off MySQL to Postgres last week", 20)
    assert await current(client, stack["stored"]) == ["User's stack includes Django."]


async def test_a_repeat_in_other_words_reinforces_the_fact(client: httpx.AsyncClient) -> None:
    first = await say(client, "I work as a nurse at St Mary's", 0)
    again = await say(client, "I'm a nurse, so night shifts are just part of it", 10)
    assert again["stored"] == [] and again["duplicates"] == 1 and again["reinforced"] == 1
    employer, nurse = await stored(client, first["stored"])
    assert employer["content"] == "User works at St Mary's."
    assert nurse["content"] == "User works as a nurse at St Mary's."
    assert nurse["t_invalid"] is None and nurse["confidence"] > 0.8
    assert nurse["metadata"]["remember"]["mentions"] == 2

    fan = await say(client, "I'm a huge fan of Studio Ghibli films", 11)
    movies = await say(client, "I love Studio Ghibli movies, Spirited Away especially", 20)
    assert movies["stored"] == [] and movies["reinforced"] == 1
    assert await current(client, fan["stored"]) == ["User is a huge fan of Studio Ghibli films."]


async def test_another_users_facts_never_supersede_or_reinforce(
    client: httpx.AsyncClient,
) -> None:
    alice = await say(client, "I live in Paris", 0)
    bob = await say(client, "we've moved from Paris to Rome", 10, headers=BOB)
    same = await say(client, "I live in Paris", 11, headers=BOB)
    assert bob["superseded"] == [] and same["stored"] and same["reinforced"] == 0
    assert await current(client, alice["stored"]) == ["User lives in Paris."]
    missing = await client.get(f"/memory/{same['stored'][0]}", headers=ALICE)
    assert missing.status_code == 404


# --- The LLM path ------------------------------------------------------------------------------


def attribute_reply(messages: list[dict[str, Any]]) -> str:
    """The fake model: extraction in the attribute model; every other prompt says nothing."""
    system = messages[0]["content"].lower()
    if "extract durable facts" not in system:
        return json.dumps({"contradicts": False, "reason": "no", "memories": []})
    user = messages[-1]["content"]
    residence = "Bristol" if "Bristol" in user else "Manchester"
    fact = {
        "content": f"User lives in {residence}.",
        "subject": "user",
        "type": "Fact",
        "categories": ["location"],
        "importance": 0.7,
        "confidence": 0.9,
        "ttl_days": None,
        "event_time": None,
        "attribute": "residence",
        "key": None,
        "value": residence,
        "ended": False,
        "slot": None,
        "message_index": 0,
    }
    return json.dumps({"facts": [fact]})


@pytest.fixture(scope="module")
def llm_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(FakeOpenAIConfig(chat_reply=attribute_reply)) as server:
        yield server


async def test_the_llm_path_fills_the_same_attributes_and_supersedes(
    falkordb_url: str, tmp_path: Path, llm_server: FakeOpenAI
) -> None:
    llm_server.reset(FakeOpenAIConfig(chat_reply=attribute_reply))
    settings = flow_settings(
        tmp_path,
        falkordb_url,
        llm_base_url=llm_server.base_url,
        llm_model="fake-model",
        enrichment_enabled=False,
        session_idle_seconds=3600,
    )
    async with running_client(settings) as client:
        first = await say(client, "I live in Manchester", 0)
        moved = await say(client, "we moved to Bristol", 30)
        assert first["extractor"] == moved["extractor"] == "llm"
        assert [s["old"] for s in moved["superseded"]] == first["stored"]
        (new,) = await stored(client, moved["stored"])
        assert new["metadata"]["remember"]["attribute"] == "residence"
        request = next(r for r in llm_server.requests if "extract" in str(r.body["messages"][0]))
        schema = request.body["response_format"]["json_schema"]["schema"]
        assert "attribute" in schema["properties"]["facts"]["items"]["required"]


async def test_an_invalid_llm_answer_falls_back_to_the_rules_visibly(
    falkordb_url: str, tmp_path: Path, llm_server: FakeOpenAI
) -> None:
    llm_server.reset(FakeOpenAIConfig(chat_reply=json.dumps({"facts": [{"content": ""}]})))
    settings = flow_settings(
        tmp_path,
        falkordb_url,
        llm_base_url=llm_server.base_url,
        llm_model="fake-model",
        enrichment_enabled=False,
        session_idle_seconds=3600,
    )
    async with running_client(settings) as client:
        result = await say(client, "I live in Manchester", 0)
        assert result["extractor"] == "rules" and "well-formed" in result["llm_error"]
        assert await current(client, result["stored"]) == ["User lives in Manchester."]
        status = (await client.get("/enrichment/status", headers=ALICE)).json()["remember"]
        assert status["llm_attempts"] == 1 and status["llm_invalid_answers"] == 1
        assert status["fallbacks"] == 1 and status["rule_extractions"] == 1
        assert status["last_error"].startswith("InvalidAnswer")
