"""Reflections and GET /profile end to end: real FalkorDB, Qdrant Edge, spaCy, the local
embedder and in-process workers, no LLM (the deterministic profile); REFLECTION_EVERY = 3."""

import itertools
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.memories.fields import MAX_CONTENT_CHARS
from app.remember.facts import Turn
from app.remember.reflection import within_limit
from tests.conftest import ALICE_KEY, BOB_KEY, auth, running_client
from tests.memories.test_embedding_jobs import wait_until
from tests.remember.script import Session
from tests.remember.test_remember_flow import flow_settings, memory, remember

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
START = datetime(2024, 5, 6, 9, 0, tzinfo=UTC)
_said = itertools.count()


def said(*user_lines: str, session_id: str = "chat") -> Session:
    """A call with these user messages, each answered by the assistant, seconds apart."""
    turns = []
    for line in user_lines:
        n = next(_said)
        when = START + timedelta(minutes=n)
        turns.append(Turn("user", line, when, f"{session_id}-u{n}"))
        turns.append(Turn("assistant", "Noted.", when + timedelta(seconds=1), f"{session_id}-a{n}"))
    return Session(session_id, turns, expected=[])


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = flow_settings(tmp_path, falkordb_url, reflection_every=3, session_idle_seconds=3600)
    async with running_client(settings) as client:
        yield client


async def profile(client: httpx.AsyncClient, headers=ALICE) -> dict[str, Any]:
    reply = await client.get("/profile", headers=headers)
    assert reply.status_code == 200, reply.text
    return reply.json()


async def next_reflection(client: httpx.AsyncClient, after: str | None = None) -> dict:
    """Waits for a current reflection other than `after`; returns it."""

    async def reflected() -> bool:
        found = (await profile(client))["reflection"]
        return found is not None and found["id"] != after

    await wait_until(reflected, timeout=60)
    return (await profile(client))["reflection"]


async def test_a_reflection_follows_the_third_user_message(client: httpx.AsyncClient) -> None:
    first = await remember(client, said("My name is Marta.", "I live in Berlin."))
    assert "reflect_job" not in first
    assert (await profile(client))["reflection"] is None

    third = await remember(client, said("I work as a UX designer."))
    assert third["reflect_job"]
    reflection = await next_reflection(client)

    assert reflection["type"] == "Insight"
    assert reflection["content"] == "Marta: lives in Berlin; works as a UX designer."
    assert reflection["metadata"]["reflection"] is True
    assert reflection["metadata"]["traits"] == {
        "name": ["Marta"],
        "residence": ["Berlin"],
        "job_title": ["ux designer"],
    }
    assert reflection["agent_id"] is None
    sources = await client.get(
        f"/memories/{reflection['id']}/related",
        params={"relationship_types": "DERIVED_FROM", "limit": 20},
        headers=ALICE,
    )
    summaries = {m["summary"] for m in sources.json()["related_memories"]}
    assert summaries == {
        "User's name is Marta.",
        "User lives in Berlin.",
        "User works as a UX designer.",
    }


async def test_a_new_reflection_supersedes_the_last(client: httpx.AsyncClient) -> None:
    await remember(client, said("My name is Marta.", "I live in Berlin.", "I love hiking."))
    first = await next_reflection(client)
    assert "Berlin" in first["content"]

    await remember(client, said("I moved to Lisbon.", "My partner is Tom.", "I have a cat."))
    second = await next_reflection(client, after=first["id"])

    assert "Lisbon" in second["content"] and "Berlin" not in second["content"]
    assert "partner is Tom" in second["content"] and "loves hiking" in second["content"]
    assert second["metadata"]["traits"]["residence"] == ["Lisbon"]
    old = await memory(client, first["id"])  # history kept
    assert old["t_invalid"] is not None
    successors = await client.get(
        f"/memories/{first['id']}/related",
        params={"relationship_types": "INVALIDATED_BY"},
        headers=ALICE,
    )
    assert [m["id"] for m in successors.json()["related_memories"]] == [second["id"]]


async def test_the_reflection_comes_first_in_context(client: httpx.AsyncClient) -> None:
    await remember(client, said("My name is Marta.", "I live in Berlin.", "I love hiking."))
    reflection = await next_reflection(client)

    body = {"query": "where does Marta live", "limit": 5}
    context = (await client.post("/recall/context", json=body, headers=ALICE)).json()
    assert context["memory_ids"][0] == reflection["id"]
    assert context["context"].index("Marta: lives in Berlin") < context["context"].index(
        "User lives in Berlin."
    )
    startup = (await client.get("/startup-recall", headers=ALICE)).json()
    assert startup["reflection"]["id"] == reflection["id"]


async def test_a_profile_shows_only_its_callers_facts(client: httpx.AsyncClient) -> None:
    await remember(client, said("My name is Marta.", "I live in Berlin.", "I love hiking."))
    await remember(client, said("My name is Bob.", session_id="bob-chat"), headers=BOB)
    await next_reflection(client)

    alice = await profile(client)
    assert alice["count"] == 3
    residence = alice["attributes"]["residence"]
    assert [(f["content"], f["value"]) for f in residence] == [("User lives in Berlin.", "Berlin")]
    assert residence[0]["source"]["session_id"] == "chat"
    assert residence[0]["source"]["message_ids"] and residence[0]["source"]["turn_ids"]
    assert set(alice["attributes"]) == {"name", "residence", "likes"}

    bob = await profile(client, headers=BOB)
    assert bob["reflection"] is None  # one message: not yet
    assert [f["content"] for fs in bob["attributes"].values() for f in fs] == [
        "User's name is Bob."
    ]


async def test_memoryless_calls_count_nothing(client: httpx.AsyncClient) -> None:
    quiet = said("My name is Marta.", "I live in Berlin.", "I love hiking.")
    body = {
        "messages": [
            {"role": t.role, "content": t.content, "message_id": t.message_id} for t in quiet.turns
        ],
        "session_id": quiet.session_id,
        "memoryless": True,
    }
    accepted = await client.post("/remember", json=body, headers=ALICE)
    assert accepted.json()["status"] == "memoryless"

    two = await remember(client, said("I work as a UX designer.", "I love hiking."))
    assert "reflect_job" not in two  # two counted, not five
    three = await remember(client, said("My partner is Tom."))
    assert three["reflect_job"]


def test_a_long_profile_is_cut_after_a_whole_item_within_the_limit():
    content = "Marta: " + "; ".join(f"likes hobby number {i}" for i in range(400))
    cut = within_limit(content)
    assert len(cut) <= MAX_CONTENT_CHARS and cut.endswith("…")
    assert cut[:-1] in content and cut[:-1].endswith(str(int(cut[:-1].rsplit(" ", 1)[1])))
