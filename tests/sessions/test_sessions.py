"""The Context Archive and MemoryLess on real stores: a session's messages in order with long
ones joined, paged by cursor, only in the caller's scope; the session's record and its switch;
a memoryless session leaves nothing in recall, the listing, the export, a backup or the logs."""

import io
import logging
import tarfile
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.conftest import ADMIN_KEY, AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client
from tests.conftest import test_settings as settings_for
from tests.memories.test_embedding_jobs import FAST_JOBS, wait_until

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)
ALICE_AS_A = auth(ALICE_KEY, "openwebui:a")
SIBLING = auth(AGENT_KEY, "openwebui:b")
PARENT = auth(AGENT_KEY)  # "openwebui": the ancestor of openwebui:a
LONG = " ".join(f"Sentence number {i} of a long story about the garden." for i in range(80))


@pytest.fixture(scope="module")
async def client(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings_for(
        tmp_path_factory.mktemp("sessions"),
        falkordb_url=falkordb_url,
        remember_rate_per_minute=1000,
        remember_max_chars=20000,
        session_idle_seconds=3600,
        **FAST_JOBS,
    )
    async with running_client(settings) as client:
        yield client


def turn(role: str, content: str, message_id: str, **extra: Any) -> dict[str, Any]:
    return {"role": role, "content": content, "message_id": message_id, **extra}


async def remember(
    client: httpx.AsyncClient, session_id: str, messages: list[dict], headers=ALICE, **extra: Any
) -> dict[str, Any]:
    """Posts the turns and waits for the job, if one was queued; returns the acknowledgement."""
    body = {"session_id": session_id, "messages": messages, **extra}
    accepted = await client.post("/remember", json=body, headers=headers)
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]
    if job_id is None:
        return accepted.json()

    async def finished() -> bool:
        job = (await client.get(f"/remember/jobs/{job_id}", headers=headers)).json()
        return job["state"] in ("done", "dead")

    await wait_until(finished, timeout=60)
    job = (await client.get(f"/remember/jobs/{job_id}", headers=headers)).json()
    assert job["state"] == "done", job
    return accepted.json()


async def messages(client: httpx.AsyncClient, session_id: str, headers=ALICE, **params) -> Any:
    return await client.get(f"/sessions/{session_id}/messages", params=params, headers=headers)


async def test_messages_come_back_in_order_verbatim_with_long_ones_joined(client):
    sent = [
        turn("user", "Hi, I'm planting tomatoes this spring.", "m1", name="Tom"),
        turn("assistant", "Great, which variety?", "m2"),
        turn("user", LONG, "m3", name="Tom"),
        turn("system", "You are a helpful assistant.", "m4"),  # not conversation: not kept
    ]
    await remember(client, "garden", sent)

    response = await messages(client, "garden")
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["session_id"] == "garden" and page["next_cursor"] is None
    got = page["messages"]
    assert [m["message_id"] for m in got] == ["m1", "m2", "m3"]
    assert [m["content"] for m in got] == [t["content"] for t in sent[:3]]
    assert [m["role"] for m in got] == ["user", "assistant", "user"]
    assert [m["name"] for m in got] == ["Tom", None, "Tom"]
    first_chunk = (await client.get(f"/memory/{got[2]['id']}", headers=ALICE)).json()["memory"]
    assert first_chunk["layer"] == "transcript"
    assert first_chunk["metadata"]["transcript"] == {"message_id": "m3", "chunk": 0, "chunks": 3}
    assert all(m["timestamp"] and m["created_at"] for m in got)


async def test_pages_follow_the_cursor_and_never_split_a_message(client):
    sent = [turn("user", LONG if i == 1 else f"Note {i}.", f"p{i}") for i in range(5)]
    await remember(client, "paged", sent)

    pages, cursor = [], None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = (await messages(client, "paged", **params)).json()
        pages.append([m["message_id"] for m in page["messages"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == [["p0", "p1"], ["p2", "p3"], ["p4"]]
    whole = (await messages(client, "paged", limit=200)).json()["messages"]
    assert whole[1]["content"] == LONG
    assert (await messages(client, "paged", limit=0)).status_code == 400
    assert (await messages(client, "paged", limit=201)).status_code == 400


async def test_only_the_conversation_s_scope_sees_its_messages_and_record(client):
    await remember(
        client, "agents-chat", [turn("user", "Only agent a hears this.", "a1")], ALICE_AS_A
    )

    for allowed in (ALICE_AS_A, PARENT):
        found = await messages(client, "agents-chat", allowed)
        assert found.status_code == 200 and len(found.json()["messages"]) == 1
        assert (await client.get("/sessions/agents-chat", headers=allowed)).status_code == 200
    for refused in (BOB, SIBLING, ALICE):  # another user, a sibling agent, no agent at all
        assert (await messages(client, "agents-chat", refused)).status_code == 404
        assert (await client.get("/sessions/agents-chat", headers=refused)).status_code == 404
    switched = await client.put("/sessions/agents-chat", json={"memoryless": True}, headers=SIBLING)
    assert switched.status_code == 404
    record = (await client.get("/sessions/agents-chat", headers=ALICE_AS_A)).json()
    assert record["memoryless"] is False


async def test_the_session_record_and_its_memoryless_switch(client):
    assert (await client.get("/sessions/fresh", headers=ALICE)).status_code == 404
    made = await client.put("/sessions/fresh", json={"memoryless": True}, headers=ALICE)
    assert made.status_code == 200, made.text
    record = made.json()
    assert record["memoryless"] is True and record["calls"] == 0
    assert record["created_at"] and record["last_activity"]
    assert (await client.get("/sessions/fresh", headers=ALICE)).json() == record

    ack = await remember(client, "fresh", [turn("user", "Keep this to yourself.", "f1")])
    assert ack["status"] == "memoryless" and ack["job_id"] is None
    assert (await messages(client, "fresh")).status_code == 404

    await client.put("/sessions/fresh", json={"memoryless": False}, headers=ALICE)
    await remember(client, "fresh", [turn("user", "Now you may keep it.", "f2")])
    record = (await client.get("/sessions/fresh", headers=ALICE)).json()
    assert record["memoryless"] is False and record["calls"] == 1 and record["messages_posted"] == 1
    kept = (await messages(client, "fresh")).json()["messages"]
    assert [m["message_id"] for m in kept] == ["f2"]
    bad = await client.put("/sessions/fresh", json={"memoryless": "maybe"}, headers=ALICE)
    assert bad.status_code == 400


async def backup_text(client: httpx.AsyncClient) -> bytes:
    response = await client.get("/backup", headers=ADMIN)
    assert response.status_code == 200, response.text
    with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as tar:
        files = [tar.extractfile(member) for member in tar.getmembers() if member.isfile()]
        return b"".join(f.read() for f in files if f is not None)


async def test_a_memoryless_session_leaves_nothing_anywhere(client, caplog):
    caplog.set_level(logging.DEBUG)
    secret, spoken, control = "plumtree7731", "quincebush5502", "applevine4420"
    await client.put("/sessions/private", json={"memoryless": True}, headers=ALICE)
    await remember(
        client,
        "private",
        [turn("user", secret, "s1"), turn("user", f"I live near {secret}.", "s2")],
    )
    await remember(client, "open", [turn("user", spoken, "o1")], memoryless=True)
    await remember(client, "open", [turn("user", control, "o2")])
    await client.get("/recall", params={"query": secret, "session_id": "private"}, headers=ALICE)

    for word in (secret, spoken):
        found = await client.post("/recall", json={"query": word, "limit": 20}, headers=ALICE)
        assert not [r for r in found.json()["results"] if word in r["memory"]["content"]]
    listed = await client.get("/memory", params={"limit": 200, "state": "all"}, headers=ALICE)
    assert control in listed.text and secret not in listed.text and spoken not in listed.text
    exported = (await client.get("/me/export", headers=ALICE)).text
    assert control in exported and secret not in exported and spoken not in exported
    archive = await backup_text(client)
    assert control.encode() in archive
    assert secret.encode() not in archive and spoken.encode() not in archive
    # The service's log lines (the test's own HTTP client logs the URLs it calls: left out).
    served = "\n".join(r.getMessage() for r in caplog.records if r.name != "httpx")
    assert "POST /remember" in served  # the capture works: the access log is in it
    assert secret not in served and spoken not in served
