"""/remember end to end on the scripted conversation: real FalkorDB, Qdrant Edge, spaCy and the
local embedder, in-process workers; without an LLM and with the test OpenAI-compatible server."""

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.models import to_iso
from app.remember.consolidation import consolidate
from app.remember.contradiction import contradicts_by_rules
from app.remember.tasks import delete_expired_raw
from tests.conftest import ALICE_KEY, auth, running_client, test_settings
from tests.fake_openai import FakeOpenAI, FakeOpenAIConfig
from tests.memories.test_embedding_jobs import FAST_JOBS, wait_until
from tests.remember.script import AGENT_ID, SESSION_1, SESSION_2, SESSION_3, Session
from tests.remember.script import fake_chat_reply as extraction_reply

ALICE = auth(ALICE_KEY)
ALICE_WITH_AVA = auth(ALICE_KEY, AGENT_ID)  # sees Alice's shared memories and Ava's own
IDLE_S = 1.0


def remember_body(session: Session, **extra: Any) -> dict[str, Any]:
    messages = [
        {
            "role": t.role,
            "content": t.content,
            "timestamp": to_iso(t.timestamp),
            "message_id": t.message_id,
        }
        for t in session.turns
    ]
    return {"messages": messages, "session_id": session.session_id, **extra}


async def remember(
    client: httpx.AsyncClient, session: Session, headers=ALICE, **extra: Any
) -> dict[str, Any]:
    """Posts a session and waits for its extraction job; returns the job's result."""
    body = remember_body(session, **extra)
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


async def memory(client: httpx.AsyncClient, memory_id: str, headers=ALICE) -> dict:
    return (await client.get(f"/memory/{memory_id}", headers=headers)).json()["memory"]


async def contents(client: httpx.AsyncClient, ids: list[str], headers=ALICE) -> list[str]:
    return [(await memory(client, i, headers))["content"] for i in ids]


async def all_superseded(client: httpx.AsyncClient, ids: list[str]) -> bool:
    """Whether every one of these raw memories has been consolidated."""
    return all([(await memory(client, i))["superseded_by"] for i in ids])


async def recall(client: httpx.AsyncClient, query: str, **params: Any) -> list[dict]:
    body = {"query": query, "limit": 5, **params}
    return (await client.post("/recall", json=body, headers=ALICE)).json()["results"]


def flow_settings(tmp_path: Path, falkordb_url: str, **overrides: Any):
    values = {
        "embedding_provider": "local",
        "embedding_dimensions": None,
        "session_idle_seconds": IDLE_S,
        # No reflections here (tests/remember/test_reflection.py has them): one written while a
        # test reads would be one more memory about the user, on its own schedule.
        "reflection_every": 0,
        **FAST_JOBS,
        **overrides,
    }
    return test_settings(tmp_path, falkordb_url=falkordb_url, **values)


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with running_client(flow_settings(tmp_path, falkordb_url)) as client:
        yield client


@pytest.fixture
async def unhurried(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """Sessions are not consolidated while the test runs."""
    settings = flow_settings(tmp_path, falkordb_url, session_idle_seconds=3600)
    async with running_client(settings) as client:
        yield client


async def test_the_scripted_conversation_without_an_llm(unhurried: httpx.AsyncClient) -> None:
    client = unhurried
    first = await remember(client, SESSION_1)
    assert first["extractor"] == "rules"
    assert first["dropped_by_attribution"] == 1  # "I'm Ava": an assistant fact, no agent set
    stored = await contents(client, first["stored"])
    assert {"User's name is Tom.", "User lives in Prague."} <= set(stored)
    prague = first["stored"][stored.index("User lives in Prague.")]

    second = await remember(client, SESSION_2)
    assert second["duplicates"] == 1  # "I really love hiking" = "I love hiking"
    hiking = await client.post("/recall", json={"query": "hiking", "limit": 20}, headers=ALICE)
    facts = [r for r in hiking.json()["results"] if not r["memory"]["metadata"].get("reflection")]
    loves = [r for r in facts if "loves hiking" in r["memory"]["content"]]  # a reflection may too
    assert len(loves) == 1

    third = await remember(client, SESSION_3)
    assert [s["old"] for s in third["superseded"]] == [prague]

    # Current state: Berlin; Prague is closed, and its history kept.
    where = await recall(client, "Where does the user live?")
    assert "Berlin" in where[0]["memory"]["content"]
    assert all("Prague" not in r["memory"]["content"] for r in where)
    old = await memory(client, prague)
    assert old["t_invalid"] is not None and old["version"] == 2
    history = (await client.get(f"/memory/{prague}/history", headers=ALICE)).json()
    assert history["revisions"][0].get("t_invalid") is None  # the open version is kept
    both = await recall(client, "Where does the user live?", state_mode="history", limit=10)
    assert any("Prague" in r["memory"]["content"] for r in both)


async def test_the_agent_header_stands_for_a_missing_agent_id(
    unhurried: httpx.AsyncClient,
) -> None:
    result = await remember(unhurried, SESSION_1, headers=ALICE_WITH_AVA)  # no agent_id in the body
    assert result["dropped_by_attribution"] == 0
    stored = [await memory(unhurried, i, ALICE_WITH_AVA) for i in result["stored"]]
    assistant = [m for m in stored if m["role"] == "assistant"]
    assert assistant and all(m["agent_id"] == AGENT_ID for m in assistant)
    assert "User's name is Tom." in [m["content"] for m in stored]
    # A caller confined to an agent writes into that agent's scope only, user facts included.
    about_the_user = [m for m in stored if m["role"] == "user"]
    assert about_the_user and all(m["agent_id"] == AGENT_ID for m in about_the_user)


async def test_a_repeated_conversation_is_not_embedded_again(
    unhurried: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = unhurried.app.state.runtime.embedder
    embedded: list[str] = []
    embed = embedder.embed

    async def counting(texts):
        embedded.extend(texts)
        return await embed(texts)

    monkeypatch.setattr(embedder, "embed", counting)
    first = await remember(unhurried, SESSION_1)
    facts = await contents(unhurried, first["stored"])
    assert facts and all(any(fact in text for text in embedded) for fact in facts)

    embedded.clear()
    again = await remember(unhurried, SESSION_1)
    # A repost (front-ends send the whole history every turn): its turns are kept already, so
    # nothing is stored, read for facts or embedded again.
    assert first["turns_stored"] == len(SESSION_1.turns)
    assert again["stored"] == [] and again["turns_stored"] == 0 and again["extracted"] == 0
    assert not [text for text in embedded if any(fact in text for fact in facts)]


async def test_consolidation_promotes_raw_facts_that_then_rank_higher(
    client: httpx.AsyncClient,
) -> None:
    first = await remember(client, SESSION_1)
    raw_ids = first["stored"]

    await wait_until(lambda: all_superseded(client, raw_ids), timeout=30)
    raw = await memory(client, raw_ids[0])
    promoted = await memory(client, raw["superseded_by"])
    assert promoted["layer"] == "consolidated" and promoted["content"] == raw["content"]
    assert promoted["derived_from"] == [raw["id"]]
    assert promoted["source"]["created_by"] == "consolidation"

    async def embedded() -> bool:
        return (await memory(client, promoted["id"]))["embedding_status"] == "done"

    await wait_until(embedded)
    results = {r["id"]: r for r in await recall(client, raw["content"], limit=10)}
    assert promoted["id"] in results and raw["id"] not in results  # one answer, not two
    assert results[promoted["id"]]["score_components"]["layer_penalty"] == 0
    raws = await recall(client, raw["content"], limit=10, layer=["raw"])
    by_id = {r["id"]: r for r in raws}
    assert {r["memory"]["layer"] for r in raws} == {"raw"}  # neighbours obey filters too
    assert by_id[raw["id"]]["score_components"]["layer_penalty"] == -0.15  # raw, superseded


def llm_reply(messages: list[dict[str, Any]]) -> str:
    """The test LLM: extraction from the script, contradiction by slot, synthesis by promotion."""
    system = messages[0]["content"].lower()
    user = messages[-1]["content"]
    if "contradict" in system and user.startswith("{"):
        claim = json.loads(user)
        verdict = contradicts_by_rules(claim["old"], claim["new"])
        return json.dumps({"contradicts": verdict, "reason": "same slot, other value"})
    if "consolidate" in system:
        facts = [line.split(". ", 1) for line in user.splitlines() if line[:1].isdigit()]
        memories = [
            {"content": text, "type": "Fact", "importance": 0.6, "sources": [int(number)]}
            for number, text in facts
        ]
        return json.dumps({"memories": memories})
    return extraction_reply(messages)


@pytest.fixture(scope="module")
def llm_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(FakeOpenAIConfig(chat_reply=llm_reply)) as server:
        yield server


async def test_the_scripted_conversation_with_an_llm(
    falkordb_url: str, tmp_path: Path, llm_server: FakeOpenAI
) -> None:
    llm_server.reset(FakeOpenAIConfig(chat_reply=llm_reply))
    settings = flow_settings(
        tmp_path,
        falkordb_url,
        llm_base_url=llm_server.base_url,
        llm_model="fake-model",
        enrichment_enabled=False,
    )
    async with running_client(settings) as client:
        provenance = {"labels": {"app": "webchat"}, "source": {"chat_id": "c-1", "model": "m-9"}}
        first = await remember(client, SESSION_1, agent_id=AGENT_ID, **provenance)
        assert first["extractor"] == "llm" and first["dropped_by_attribution"] == 0
        stored = await contents(client, first["stored"], ALICE_WITH_AVA)
        by_content = dict(zip(stored, first["stored"], strict=True))
        ava = await memory(client, by_content["Assistant's name is Ava."], ALICE_WITH_AVA)
        assert (await client.get(f"/memory/{ava['id']}", headers=ALICE)).status_code == 404
        assert (ava["role"], ava["agent_id"]) == ("assistant", AGENT_ID)
        tom = await memory(client, by_content["User's name is Tom."])
        assert tom["agent_id"] is None and tom["source"]["created_by"] == "remember"
        assert tom["source"]["message_id"] == "s1-02" and tom["source"]["session_id"] == "s1"
        assert (tom["source"]["chat_id"], tom["source"]["model"]) == ("c-1", "m-9")
        assert tom["labels"] == ava["labels"] == {"app": "webchat"}  # inherited by every fact

        await remember(client, SESSION_2, agent_id=AGENT_ID)
        third = await remember(client, SESSION_3, agent_id=AGENT_ID)
        replaced = await contents(client, [s["old"] for s in third["superseded"]])
        assert by_content["User lives in Prague."] in [s["old"] for s in third["superseded"]]
        assert set(replaced) == {"User lives in Prague."}  # its consolidated copy, if made yet

        async def synthesised() -> bool:
            return bool((await memory(client, by_content["User's name is Tom."]))["superseded_by"])

        await wait_until(synthesised, timeout=30)
        tom = await memory(client, by_content["User's name is Tom."])
        summary = await memory(client, tom["superseded_by"])
        assert summary["layer"] == "consolidated" and summary["content"] == "User's name is Tom."
        systems = [r.body["messages"][0]["content"] for r in llm_server.requests]
        assert any("consolidate" in s.lower() for s in systems)


async def test_an_unreachable_llm_falls_back_to_rules_visibly(
    falkordb_url: str, tmp_path: Path, llm_server: FakeOpenAI
) -> None:
    llm_server.reset(FakeOpenAIConfig(chat_reply=llm_reply, quota_exceeded=True))
    settings = flow_settings(
        tmp_path,
        falkordb_url,
        llm_base_url=llm_server.base_url,
        llm_model="fake-model",
        enrichment_enabled=False,
    )
    async with running_client(settings) as client:
        result = await remember(client, SESSION_1)
        assert result["extractor"] == "rules" and "quota" in result["llm_error"].lower()
        assert "User lives in Prague." in await contents(client, result["stored"])
        status = (await client.get("/enrichment/status", headers=ALICE)).json()
        assert status["llm"]["circuit"]["open"] is True


async def test_later_turns_reconsolidate_by_appending(client: httpx.AsyncClient) -> None:
    first = await remember(client, SESSION_1)

    await wait_until(lambda: all_superseded(client, first["stored"]), timeout=30)
    before = {i: (await memory(client, i))["superseded_by"] for i in first["stored"]}

    later = await remember(client, SESSION_2, session_id=SESSION_1.session_id)
    assert later["stored"]
    await wait_until(lambda: all_superseded(client, later["stored"]), timeout=30)
    after = {i: (await memory(client, i))["superseded_by"] for i in first["stored"]}
    assert after == before  # earlier consolidated memories kept as they were
    added = {(await memory(client, i))["superseded_by"] for i in later["stored"]}
    assert not added & set(before.values())


async def test_retention_deletes_only_superseded_raw_facts_without_links(
    unhurried: httpx.AsyncClient,
) -> None:
    client = unhurried
    first = await remember(client, SESSION_1)
    await consolidate(client.app.state.runtime, "alice", SESSION_1.session_id)
    assert await all_superseded(client, first["stored"])
    kept_by_link, *expired = first["stored"]
    linked = await client.post(
        "/associate",
        json={"memory1_id": kept_by_link, "memory2_id": expired[0], "type": "RELATES_TO"},
        headers=ALICE,
    )
    assert linked.status_code in (200, 201), linked.text
    unconsolidated = await remember(client, SESSION_2)  # not consolidated: its session is active

    deleted = await delete_expired_raw(client.app.state.runtime, retention_days=0)

    assert deleted == len(expired) - 1  # expired[0] is linked too
    for memory_id in expired[1:]:
        response = await client.get(f"/memory/{memory_id}", headers=ALICE)
        assert response.status_code == 404
        history = (await client.get(f"/memory/{memory_id}/history", headers=ALICE)).json()
        assert history["tombstone"]["actor"] == "retention"
    for memory_id in [kept_by_link, expired[0], *unconsolidated["stored"]]:
        assert (await client.get(f"/memory/{memory_id}", headers=ALICE)).status_code == 200
    promoted = (await memory(client, kept_by_link))["superseded_by"]
    assert (await client.get(f"/memory/{promoted}", headers=ALICE)).status_code == 200
