"""Transcript turns: /remember keeps every message verbatim, once, whole; facts index the turns.

Real FalkorDB, Qdrant Edge, spaCy and the local embedder, in-process workers."""

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.memories.fields import MAX_CONTENT_CHARS
from app.remember.facts import Turn
from app.remember.tasks import delete_expired_transcripts
from app.remember.transcript import message_key, split_message, with_message_ids
from app.storage.graph import schema, snapshot
from tests.conftest import ADMIN_KEY, ALICE_KEY, BOB_KEY, auth
from tests.conftest import running_client as running
from tests.memories.test_embedding_jobs import wait_until
from tests.remember.test_remember_flow import flow_settings

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)
DAY = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = flow_settings(tmp_path, falkordb_url, session_idle_seconds=3600)
    async with running(settings) as client:
        yield client


def message(role: str, content: str, day: int = 0) -> dict[str, Any]:
    return {"role": role, "content": content, "timestamp": (DAY + timedelta(days=day)).isoformat()}


async def remember(client: httpx.AsyncClient, body: dict[str, Any], headers=ALICE) -> dict:
    accepted = await client.post("/remember", json=body, headers=headers)
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]

    async def done() -> bool:
        state = (await client.get(f"/remember/jobs/{job_id}", headers=headers)).json()["state"]
        return state in ("done", "dead")

    await wait_until(done, timeout=60)
    job = (await client.get(f"/remember/jobs/{job_id}", headers=headers)).json()
    assert job["state"] == "done", job
    return job["result"]


async def layer(client: httpx.AsyncClient, name: str, headers=ALICE) -> list[dict]:
    """Every memory of the caller in one layer (by a recall without a query)."""
    body = {"layer": name, "limit": 100, "sort": "time_asc"}
    return (await client.post("/recall", json=body, headers=headers)).json()["results"]


async def searchable(client: httpx.AsyncClient, count: int) -> None:
    async def embedded() -> bool:
        turns = await layer(client, "transcript")
        done = [t for t in turns if t["memory"]["embedding_status"] == "done"]
        return len(done) >= count

    await wait_until(embedded, timeout=60)


# --- Pure parts --------------------------------------------------------------------------------


def test_a_long_message_is_split_after_sentences_and_nothing_is_dropped():
    sentences = [f"Sentence number {i} says something worth keeping." for i in range(500)]
    text = " ".join(sentences)
    chunks = split_message(text)
    assert len(chunks) > 1 and all(len(c) <= MAX_CONTENT_CHARS for c in chunks)
    assert " ".join(chunks) == text
    assert all(c.endswith(".") for c in chunks)  # each ends where a sentence does


def test_an_unbroken_run_longer_than_the_limit_is_cut_at_the_limit_and_kept():
    text = "x" * (MAX_CONTENT_CHARS * 2 + 10)
    chunks = split_message(text)
    assert "".join(chunks) == text and max(map(len, chunks)) == MAX_CONTENT_CHARS


def test_a_message_without_an_id_is_named_by_its_place_and_content():
    turns = [Turn("user", "hi", DAY), Turn("user", "hi", DAY, "m-7")]
    named = with_message_ids(turns)
    assert named[0].message_id == message_key(0, "hi") != message_key(1, "hi")
    assert named[1].message_id == "m-7"


# --- Stored ------------------------------------------------------------------------------------


async def test_every_turn_is_kept_verbatim_and_a_repost_stores_nothing_new(client):
    first = {
        "session_id": "s1",
        "messages": [
            message("system", "You are a helpful assistant."),
            {**message("user", "hey, I am Marta, UX designer, living in Berlin"), "name": "Marta"},
            message("assistant", "Nice to meet you, Marta!"),
        ],
    }
    result = await remember(client, first)
    assert result["turns_stored"] == 2  # the system message is an instruction, not a turn
    turns = [r["memory"] for r in await layer(client, "transcript")]
    assert [t["content"] for t in turns] == [
        "hey, I am Marta, UX designer, living in Berlin",
        "Nice to meet you, Marta!",
    ]
    assert [t["role"] for t in turns] == ["user", "assistant"]
    assert turns[0]["speaker"] == "Marta" and turns[0]["session_id"] == "s1"

    # The front-end sends the whole history again with the next exchange.
    again = {**first, "messages": [*first["messages"], message("user", "what's a good cafe?")]}
    repost = await remember(client, again)
    assert repost["turns_stored"] == 1 and repost["stored"] == []
    assert len(await layer(client, "transcript")) == 3


async def test_a_20000_character_message_is_kept_whole_in_chunks(client):
    text = " ".join(f"Line {i} of the incident log: the build failed." for i in range(420))
    assert len(text) >= 20_000
    body = {"session_id": "log", "messages": [{**message("user", text), "message_id": "m1"}]}
    await remember(client, body)
    found = [r["memory"] for r in await layer(client, "transcript")]
    chunks = sorted(found, key=lambda c: c["created_at"])  # record time keeps the order sent
    assert len(chunks) > 1 and " ".join(c["content"] for c in chunks) == text
    parts = [c["metadata"]["transcript"] for c in chunks]
    assert {p["message_id"] for p in parts} == {"m1"}
    assert [p["chunk"] for p in parts] == list(range(len(chunks)))


async def test_facts_name_their_messages_and_a_repeat_adds_its_own(client):
    said = {
        "session_id": "s1",
        "messages": [{**message("user", "I live in Prague"), "message_id": "a1"}],
    }
    first = await remember(client, said)
    (fact_id,) = first["stored"]
    repeat = {
        "session_id": "s2",
        "messages": [{**message("user", "I live in Prague", day=3), "message_id": "b7"}],
    }
    again = await remember(client, repeat)
    assert again["stored"] == [] and again["reinforced"] == 1
    fact = (await client.get(f"/memory/{fact_id}", headers=ALICE)).json()["memory"]
    assert fact["source"]["message_id"] == "a1"
    assert fact["source"]["message_ids"] == ["a1", "b7"]
    turns = {t["memory"]["id"]: t["memory"] for t in await layer(client, "transcript")}
    assert set(fact["source"]["turn_ids"]) == set(turns)  # both turns that said it


async def test_a_fact_about_a_named_speaker_names_them(client):
    body = {
        "session_id": "s1",
        "messages": [{**message("user", "I love hiking in the Alps"), "name": "Elise"}],
    }
    result = await remember(client, body)
    facts = [
        (await client.get(f"/memory/{i}", headers=ALICE)).json()["memory"]["content"]
        for i in result["stored"]
    ]
    assert facts and all(f.startswith("Elise") for f in facts), facts


async def test_a_turn_that_no_fact_captured_answers_its_question(client):
    body = {
        "session_id": "s1",
        "messages": [
            message("user", "we finally booked the ferry to Hvar for the second week of July"),
        ],
    }
    result = await remember(client, body)
    assert result["turns_stored"] == 1
    await searchable(client, 1)
    found = await client.get(
        "/recall", params={"query": "when is the ferry to Hvar"}, headers=ALICE
    )
    contents = [r["memory"]["content"] for r in found.json()["results"]]
    assert contents and "ferry to Hvar" in contents[0]


async def test_the_current_fact_ranks_above_the_turn_of_the_fact_it_superseded(client):
    await remember(client, {"session_id": "s1", "messages": [message("user", "I live in Prague")]})
    moved = {"session_id": "s2", "messages": [message("user", "I moved to Berlin", day=30)]}
    result = await remember(client, moved)
    assert result["superseded"], result
    await searchable(client, 2)
    params = {"query": "where do I live?", "limit": 10, "relevance_floor": 0}
    answer = (await client.get("/recall", params=params, headers=ALICE)).json()["results"]
    order = [(r["memory"]["layer"], r["memory"]["content"]) for r in answer]
    assert answer[0]["memory"]["layer"] != "transcript", order
    assert "Berlin" in answer[0]["memory"]["content"], order
    old_turn = next(r for r in answer if r["memory"]["content"] == "I live in Prague")
    assert old_turn["score_components"]["outdated"] < 0  # what it said is no longer so
    (fact,) = result["superseded"]
    assert old_turn["state"] == "replaced"
    assert old_turn["replaced_by"]["id"] == fact["new"]
    assert old_turn["replaced_by"]["timestamp"] > old_turn["memory"]["timestamp"]
    assert {r["state"] for r in answer if r is not old_turn} == {"current"}
    body = {"query": "where do I live?", "limit": 10}
    block = (await client.post("/recall/context", json=body, headers=ALICE)).json()["context"]
    (line,) = [line for line in block.splitlines() if "I live in Prague</memory>" in line]
    assert f'state="replaced" replaced-by="{fact["new"]}"' in line
    assert 'state="replaced"' not in block.split("I live in Prague</memory>")[1]


async def test_transcripts_are_the_callers_own(client):
    body = {"session_id": "s1", "messages": [message("user", "my locker code is 4471")]}
    await remember(client, body)
    await searchable(client, 1)
    (turn,) = [r["memory"] for r in await layer(client, "transcript")]
    assert (await client.get(f"/memory/{turn['id']}", headers=BOB)).status_code == 404
    assert await layer(client, "transcript", headers=BOB) == []
    found = await client.get("/recall", params={"query": "locker code"}, headers=BOB)
    assert found.json()["results"] == []
    mine = await client.get("/recall", params={"query": "locker code"}, headers=ALICE)
    assert [r["memory"]["id"] for r in mine.json()["results"]] == [turn["id"]]


async def test_a_recalled_fact_can_carry_the_turns_it_came_from(client):
    body = {"session_id": "s1", "messages": [{**message("user", "I work as a civil engineer")}]}
    result = await remember(client, body)
    assert result["stored"]
    params = {"query": "civil engineer", "include_source_turns": "true", "layer": "raw"}
    found = (await client.get("/recall", params=params, headers=ALICE)).json()["results"]
    (fact,) = found
    (turn,) = fact["source_turns"]
    assert turn["content"] == "I work as a civil engineer" and turn["role"] == "user"
    plain = await client.get(
        "/recall", params={**params, "include_source_turns": "false"}, headers=ALICE
    )
    assert "source_turns" not in plain.json()["results"][0]


async def test_transcript_retention_deletes_old_turns_and_keeps_their_facts(client):
    old = {"session_id": "s1", "messages": [message("user", "I live in Prague", day=-40)]}
    fact_ids = (await remember(client, old))["stored"]
    recent = {"session_id": "s2", "messages": [message("user", "lovely weather today", day=0)]}
    await remember(client, recent)
    runtime = client.app.state.runtime
    deleted = await delete_expired_transcripts(runtime, retention_days=30 + days_since(DAY))
    assert deleted == 1
    left = [r["memory"]["content"] for r in await layer(client, "transcript")]
    assert left == ["lovely weather today"]
    assert fact_ids
    for fact_id in fact_ids:
        assert (await client.get(f"/memory/{fact_id}", headers=ALICE)).status_code == 200


def days_since(moment: datetime) -> float:
    return (datetime.now(UTC) - moment).total_seconds() / 86_400


async def test_operators_paths_cover_transcripts(client):
    """Export carries the turns, recovery from vectors brings them back with their speaker, and
    erasing the user removes them."""
    body = {
        "session_id": "s1",
        "messages": [{**message("user", "my bike is a blue Brompton"), "name": "Ines"}],
    }
    await remember(client, body)
    await searchable(client, 1)
    exported = await client.get("/admin/export", params={"user_id": "alice"}, headers=ADMIN)
    lines = [json.loads(line) for line in exported.text.splitlines() if line.strip()]
    turns = [line["memory"] for line in lines if line["memory"]["layer"] == "transcript"]
    assert [t["content"] for t in turns] == ["my bike is a blue Brompton"]

    graph = client.app.state.stores.graph
    await snapshot.delete_everything(graph)
    await schema.migrate(graph)
    recovered = await client.post("/admin/recover-from-vectors", headers=ADMIN)
    assert recovered.status_code == 200, recovered.text
    (turn,) = [r["memory"] for r in await layer(client, "transcript")]
    assert turn["speaker"] == "Ines" and turn["content"] == "my bike is a blue Brompton"

    erased = await client.delete("/admin/users/alice", headers=ADMIN)
    assert erased.status_code == 200, erased.text
    assert await layer(client, "transcript") == []
