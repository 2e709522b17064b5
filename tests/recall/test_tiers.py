"""Memoria's tiers on the read side, on real stores: MemoryLess reads nothing (and reinforces
nothing), Personal Intelligence off keeps only the current session's and pinned memories, and
a session's latest messages open the context block."""

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.conftest import ADMIN_KEY, AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client
from tests.conftest import test_settings as settings_for
from tests.sessions.test_sessions import remember, turn

ALICE, BOB, OPENWEBUI = auth(ALICE_KEY), auth(BOB_KEY), auth(AGENT_KEY)
FAST_JOBS = {"workers": 1, "jobs_base_delay_s": 0.2, "jobs_max_delay_s": 1.0, "jobs_sweep_s": 1}


@pytest.fixture(scope="module")
async def client(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings_for(
        tmp_path_factory.mktemp("tiers"),
        falkordb_url=falkordb_url,
        remember_rate_per_minute=1000,
        session_idle_seconds=3600,
        session_context_messages=2,
        **FAST_JOBS,
    )
    async with running_client(settings) as client:
        yield client


async def store(client: httpx.AsyncClient, content: str, headers=ALICE, **fields: Any) -> str:
    response = await client.post("/memory", json={"content": content, **fields}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


def in_session(session_id: str) -> dict[str, Any]:
    return {"source": {"session_id": session_id}}


async def recalled(client: httpx.AsyncClient, query: str, headers=ALICE, **params) -> dict:
    response = await client.post(
        "/recall", json={"query": query, "limit": 20, **params}, headers=headers
    )
    assert response.status_code == 200, response.text
    return response.json()


def ids_of(body: dict) -> set[str]:
    return {item["id"] for item in body["results"]}


async def access_count(client: httpx.AsyncClient, memory_id: str) -> int:
    await client.app.state.runtime.access.flush()
    memory = (await client.get(f"/memory/{memory_id}", headers=ALICE)).json()["memory"]
    return memory.get("access_count") or 0


async def test_memoryless_reads_nothing_and_reinforces_nothing(client):
    kept = await store(client, "The walnut cupboard holds the winter blankets.", tags=["lesson"])
    await client.put("/sessions/quiet", json={"memoryless": True}, headers=ALICE)
    before = await access_count(client, kept)

    for params in ({"memoryless": True}, {"session_id": "quiet"}):
        body = await recalled(client, "walnut cupboard blankets", **params)
        assert body["results"] == [] and body["memoryless"] is True and body["relevant"] is False
        got = await client.get(
            "/recall", params={"query": "walnut cupboard", **params}, headers=ALICE
        )
        assert got.json()["results"] == [] and got.json()["memoryless"] is True
        packed = await client.post(
            "/recall/context", json={"query": "walnut cupboard", **params}, headers=ALICE
        )
        assert packed.json()["context"] == "" and packed.json()["memoryless"] is True
        startup = (await client.get("/startup-recall", params=params, headers=ALICE)).json()
        assert startup["critical_lessons"] == [] and startup["memoryless"] is True
    assert await access_count(client, kept) == before

    normal = await recalled(client, "walnut cupboard blankets")
    assert kept in ids_of(normal) and "memoryless" not in normal
    assert await access_count(client, kept) == before + 1  # the positive control


async def test_personal_intelligence_off_keeps_the_session_s_and_pinned_memories(client):
    here = await store(client, "Heron sightings by the lake this morning.", **in_session("pi-1"))
    there = await store(client, "Heron nest found in the old oak.", **in_session("pi-2"))
    pinned = await store(client, "Heron watching is my favourite hobby.", pinned=True)
    loose = await store(client, "Heron photos need a long lens.")
    lesson = await store(client, "Heron lesson: stay quiet.", tags=["lesson"], **in_session("pi-2"))
    everything = {here, there, pinned, loose}
    assert everything <= ids_of(await recalled(client, "heron"))

    assert (await client.get("/me/settings", headers=ALICE)).json()["personal_intelligence"]
    assert (
        await client.put("/me/settings", json={"personal_intelligence": False}, headers=OPENWEBUI)
    ).status_code == 403
    off = await client.put("/me/settings", json={"personal_intelligence": False}, headers=ALICE)
    assert off.status_code == 200 and off.json()["personal_intelligence"] is False
    assert (await client.get("/me/settings", headers=OPENWEBUI)).json()[
        "personal_intelligence"
    ] is False
    try:
        body = await recalled(client, "heron", session_id="pi-1")
        assert ids_of(body) & everything == {here, pinned}
        assert body["personal_intelligence"] is False and body["session_id"] == "pi-1"
        assert ids_of(await recalled(client, "heron")) & everything == {pinned}
        packed = await client.post(
            "/recall/context", json={"query": "heron", "session_id": "pi-1"}, headers=ALICE
        )
        assert set(packed.json()["memory_ids"]) & everything == {here, pinned}
        startup = await client.get("/startup-recall", params={"session_id": "pi-1"}, headers=ALICE)
        assert lesson not in [m["id"] for m in startup.json()["critical_lessons"]]
        assert (await client.get("/me/settings", headers=BOB)).json()["personal_intelligence"]
    finally:
        await client.put("/me/settings", json={"personal_intelligence": True}, headers=ALICE)
    assert everything <= ids_of(await recalled(client, "heron"))


async def test_a_session_s_latest_messages_open_the_context_in_order(client):
    said = [
        turn("user", "My kayak is bright orange.", "k1", name="Tom"),
        turn("assistant", "Orange kayaks are easy to spot.", "k2"),
        turn("user", "I paddle on the river every Sunday.", "k3", name="Tom"),
        turn("assistant", "Sunday paddling sounds relaxing.", "k4"),
    ]
    await remember(client, "kayak", said)
    pages = (await client.get("/sessions/kayak/messages", headers=ALICE)).json()["messages"]
    turn_ids = [m["id"] for m in pages]

    body = {"query": "kayak orange river", "session_id": "kayak", "session_messages": 3}
    packed = (await client.post("/recall/context", json=body, headers=ALICE)).json()
    text = packed["context"]
    turns = re.findall(r"<turn [^>]*>([^<]*)</turn>", text)
    assert turns == [t["content"] for t in said[1:]]
    assert "<memory " not in text[: text.rindex("</turn>")]  # the messages come first
    assert len(packed["memory_ids"]) > 3  # and recalled memories follow them
    assert '<turn role="user" name="Tom"' in text
    assert packed["session_messages"] == 3 and packed["memory_ids"][:3] == turn_ids[1:]
    assert len(packed["memory_ids"]) == len(set(packed["memory_ids"]))  # none repeated
    assert packed["tokens_estimated"] <= 1000

    default = {"query": "kayak", "session_id": "kayak"}  # SESSION_CONTEXT_MESSAGES = 2 here
    packed = (await client.post("/recall/context", json=default, headers=ALICE)).json()
    assert re.findall(r"<turn [^>]*>([^<]*)</turn>", packed["context"]) == [
        t["content"] for t in said[2:]
    ]
    tight = {"session_id": "kayak", "session_messages": 4, "max_tokens": 110, "include_core": False}
    packed = (await client.post("/recall/context", json=tight, headers=ALICE)).json()
    assert packed["truncated"] is True and 0 < packed["session_messages"] < 4
    kept = re.findall(r"<turn [^>]*>([^<]*)</turn>", packed["context"])
    assert kept == [t["content"] for t in said][-len(kept) :]  # the newest kept
    assert packed["tokens_estimated"] <= 110

    assert (
        await client.post("/recall/context", json={**body, "session_messages": 51}, headers=ALICE)
    ).status_code == 400
    bob = (await client.post("/recall/context", json=body, headers=BOB)).json()
    assert bob["session_messages"] == 0 and "<turn" not in bob["context"]


async def test_erasing_a_user_erases_their_settings(client):
    await client.put("/me/settings", json={"personal_intelligence": False}, headers=BOB)
    assert (await recalled(client, "anything", headers=BOB))["personal_intelligence"] is False
    erased = await client.delete("/admin/users/bob", headers=auth(ADMIN_KEY))
    assert erased.status_code == 200, erased.text
    settings = (await client.get("/me/settings", headers=BOB)).json()
    assert settings == {"personal_intelligence": True, "updated_at": None}
    # the switch recall had cached went with the settings
    assert "personal_intelligence" not in await recalled(client, "anything", headers=BOB)


async def test_the_cached_switch_follows_a_change_at_once_and_per_user(client):
    """The switch is cached per user (app/storage/graph/settings_cache.py): a change is seen by the
    very next recall, and one user's switch never answers for another."""
    alice_own = await store(client, "Kestrel hovering over the meadow.")
    bob_own = await store(client, "Kestrel feathers in the garden.", headers=BOB)
    assert alice_own in ids_of(await recalled(client, "kestrel"))  # both cached: on
    assert bob_own in ids_of(await recalled(client, "kestrel", headers=BOB))
    await client.put("/me/settings", json={"personal_intelligence": False}, headers=ALICE)
    try:
        alice = await recalled(client, "kestrel")
        assert alice["personal_intelligence"] is False and alice_own not in ids_of(alice)
        bob = await recalled(client, "kestrel", headers=BOB)
        assert "personal_intelligence" not in bob and bob_own in ids_of(bob)
        await client.put("/me/settings", json={"personal_intelligence": False}, headers=BOB)
        assert bob_own not in ids_of(await recalled(client, "kestrel", headers=BOB))
    finally:
        await client.put("/me/settings", json={"personal_intelligence": True}, headers=ALICE)
        await client.put("/me/settings", json={"personal_intelligence": True}, headers=BOB)
    assert alice_own in ids_of(await recalled(client, "kestrel"))
    assert bob_own in ids_of(await recalled(client, "kestrel", headers=BOB))
