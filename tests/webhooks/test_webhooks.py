"""Webhooks end to end: targets registered by the admin receive signed events of their user's
memories from the job queue's workers; a failing target is retried and then dead-lettered."""

import asyncio
import hashlib
import hmac
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.conftest import ADMIN_KEY, ALICE_KEY, BOB_KEY, auth, running_client, test_settings
from tests.webhooks.receiver import Receiver, receiver

ADMIN = auth(ADMIN_KEY)
ALICE = auth(ALICE_KEY)
SECRET = "alice-webhook-secret-0123"
FAST_JOBS = {"workers": 2, "jobs_base_delay_s": 0.2, "jobs_max_delay_s": 1.0, "jobs_sweep_s": 1}
# The receivers listen on 127.0.0.1: a loopback target needs the operator's allow-list.
LOOPBACK = {"webhook_allowed_cidrs": ["127.0.0.0/8"]}


async def until(check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.1)


async def register(client: httpx.AsyncClient, **body: object) -> dict:
    answer = await client.post("/admin/webhooks", json=body, headers=ADMIN)
    assert answer.status_code == 201, answer.text
    return answer.json()


def signed(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


async def test_targets_are_validated_bounded_and_admin_only(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, webhook_max_targets=2, **LOOPBACK)
    async with running_client(settings) as client:
        body = {"url": "http://127.0.0.1:9/hook", "user_id": "alice"}
        refused = await client.post("/admin/webhooks", json=body, headers=ALICE)
        assert refused.status_code == 403
        for bad, field in (
            ({"url": "ftp://example.test/x", "user_id": "alice"}, "url"),
            ({"url": "http://u:p@example.test/x", "user_id": "alice"}, "url"),
            ({"url": "http://example.test/" + "x" * 2000, "user_id": "alice"}, "url"),
            ({"url": "http://example.test/x"}, "user_id"),  # null must be said, not implied
            ({**body, "events": ["memory.exploded"]}, "events"),
            ({**body, "events": []}, "events"),
            ({**body, "secret": "short"}, "secret"),
            ({**body, "url": "http://example.test:99999/x"}, "url"),
            ({**body, "secrets": SECRET}, "secrets"),  # unknown: refused, not ignored
        ):
            answer = await client.post("/admin/webhooks", json=bad, headers=ADMIN)
            assert answer.status_code == 400, (bad, answer.text)
            assert field in answer.json()["message"], answer.text
        made = await register(client, **body)
        assert made["secret"].startswith("whsec_") and len(made["events"]) == 6
        await register(client, **body, secret=SECRET, events=["memory.deleted"])
        third = await client.post("/admin/webhooks", json=body, headers=ADMIN)
        assert third.status_code == 409 and "WEBHOOK_MAX_TARGETS" in third.json()["message"]
        await register(client, url=body["url"], user_id=None)  # all users: a count of its own

        listed = (await client.get("/admin/webhooks?user_id=alice", headers=ADMIN)).json()
        assert len(listed["targets"]) == 2
        assert all("secret" not in target for target in listed["targets"])
        everything = (await client.get("/admin/webhooks", headers=ADMIN)).json()["targets"]
        assert [t["user_id"] for t in everything].count(None) == 1
        gone = await client.delete(f"/admin/webhooks/{made['id']}", headers=ADMIN)
        assert gone.status_code == 200
        again = await client.delete(f"/admin/webhooks/{made['id']}", headers=ADMIN)
        assert again.status_code == 404


async def test_events_are_signed_and_go_only_to_their_user_s_targets(
    falkordb_url: str, tmp_path: Path
):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, **FAST_JOBS, **LOOPBACK)
    with receiver() as hooks:
        async with running_client(settings) as client:
            await register(client, url=f"{hooks.url}/alice", user_id="alice", secret=SECRET)
            await register(client, url=f"{hooks.url}/bob", user_id="bob")
            await register(client, url=f"{hooks.url}/all", user_id=None, events=["memory.deleted"])

            created = await client.post("/memory", json={"content": "Tea at five"}, headers=ALICE)
            memory_id = created.json()["memory_id"]
            patch = {"importance": "high"}
            assert (
                await client.patch(f"/memory/{memory_id}", json=patch, headers=ALICE)
            ).is_success
            assert (await client.delete(f"/memory/{memory_id}", headers=ALICE)).is_success
            bob_said = {"content": "Bob likes chess"}
            assert (await client.post("/memory", json=bob_said, headers=auth(BOB_KEY))).is_success
            await until(lambda: len(hooks.at("/alice")) == 3 and len(hooks.at("/all")) == 1)
            await until(lambda: len(hooks.at("/bob")) == 1)

    alice = hooks.at("/alice")
    types = {r.event["type"] for r in alice}
    assert types == {"memory.created", "memory.updated", "memory.deleted"}
    for delivery in alice:
        assert delivery.headers["x-engram-signature"] == signed(SECRET, delivery.body)
        assert abs(int(delivery.headers["x-engram-timestamp"]) - time.time()) < 120
        event = delivery.event
        assert delivery.headers["x-engram-event"] == event["type"]
        assert delivery.headers["x-engram-delivery"] == event["id"]
        assert event["user_id"] == "alice" and event["data"]["memory_ids"] == [memory_id]
        assert "Tea" not in delivery.body.decode()  # ids, never content
    [everyone] = hooks.at("/all")
    assert everyone.event["type"] == "memory.deleted" and everyone.event["user_id"] == "alice"
    [bob] = hooks.at("/bob")
    assert bob.event["user_id"] == "bob" and bob.event["type"] == "memory.created"


async def test_a_failing_target_is_retried_then_dead_lettered(falkordb_url: str, tmp_path: Path):
    settings = test_settings(
        tmp_path, falkordb_url=falkordb_url, jobs_max_attempts=3, **FAST_JOBS, **LOOPBACK
    )
    with receiver() as hooks:
        hooks.statuses["/down"] = 503
        async with running_client(settings) as client:
            target = await register(
                client, url=f"{hooks.url}/down", user_id="alice", events=["memory.created"]
            )
            await client.post("/memory", json={"content": "Lunch on Friday"}, headers=ALICE)
            await until(lambda: len(hooks.at("/down")) == 3)

            async def dead() -> list[dict]:
                letters = (await client.get("/admin/dead-letters", headers=ADMIN)).json()["dead"]
                return [d for d in letters if d["kind"] == "webhook"]

            deadline = time.monotonic() + 30
            while not (letters := await dead()) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            [letter] = letters
            assert letter["ids"][:2] == ["alice", target["id"]] and letter["attempts"] == 3
            # a category, never what answered (a 503 here, a refused port elsewhere)
            errors = {letter["error"], *(h["error"] for h in letter["history"])}
            assert errors == {"DeliveryFailed: delivery failed"}
            assert letter["traceback"].strip().endswith("DeliveryFailed: delivery failed")
            await asyncio.sleep(1.5)
            assert len(hooks.at("/down")) == 3  # no attempt after the last
    ids = {r.event["id"] for r in hooks.at("/down")}
    assert len(ids) == 1  # the same event each time


async def test_remember_and_erasure_events(falkordb_url: str, tmp_path: Path):
    settings = test_settings(
        tmp_path, falkordb_url=falkordb_url, session_idle_seconds=3600, **FAST_JOBS, **LOOPBACK
    )
    with receiver() as hooks:
        async with running_client(settings) as client:
            await register(client, url=f"{hooks.url}/alice", user_id="alice", secret=SECRET)
            said = ("My name is Tom and I live in Prague.", "I moved to Berlin last month.")
            for calls, text in enumerate(said, start=1):
                turns = [{"role": "user", "content": text}]
                sent = {"messages": turns, "session_id": "chat-1"}
                assert (await client.post("/remember", json=sent, headers=ALICE)).status_code == 202
                await until(lambda n=calls: len(_events(hooks, "remember.finished")) == n)
            superseded = _events(hooks, "memory.superseded")
            finished = sorted(_events(hooks, "remember.finished"), key=lambda e: e["created_at"])
            created = _events(hooks, "memory.created")
            assert len(finished) == 2 and all(e["data"]["session_id"] == "chat-1" for e in finished)
            stored = [i for e in finished for i in e["data"]["stored"]]
            assert stored and {i for e in created for i in e["data"]["memory_ids"]} == set(stored)
            [replaced] = superseded
            [pair] = replaced["data"]["pairs"]
            assert pair["old"] in finished[0]["data"]["stored"]
            assert pair["new"] in finished[1]["data"]["stored"]

            erased = await client.delete(f"/memory/{pair['old']}?erase=true", headers=ALICE)
            assert erased.is_success, erased.text
            await until(lambda: len(_events(hooks, "memory.erased")) == 1)
    [gone] = _events(hooks, "memory.erased")
    assert pair["old"] in gone["data"]["memory_ids"]


def _events(hooks: Receiver, event_type: str) -> list[dict]:
    return [r.event for r in hooks.at("/alice") if r.event["type"] == event_type]
