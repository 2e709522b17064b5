"""Erasing a user reaches their webhook events (issue 41, item 3): the deliveries of their
events, queued, waiting for a retry or dead, are stopped and deleted, so a failing target stops
receiving them; afterwards no Redis key of the FalkorDB server (every key, every type) and no
file holds the user's id, session id or memory ids, but where erasure keeps ids on purpose
(tombstones, audit events, the target the operator registered for the user); and the service
log never carried an event's payload."""

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import redis.asyncio as redis

from tests.conftest import ADMIN_KEY, API_KEYS, auth, free_port, running_client, test_settings
from tests.ops.test_erase_disk import read_value
from tests.webhooks.receiver import Receiver, receiver

ADMIN = auth(ADMIN_KEY)
ZOE_KEY = "zoe-key-0123456789abcdef"
ZOE = "zoe-5e81c3a9"
ZOE_AUTH = auth(ZOE_KEY)
SESSION = "garden-7b2e90d4c1"
WRITTEN = "Zoe keeps three beehives on the roof of her building"
TOLD = "I planted tomatoes and basil on the balcony this spring"
RETRY_S = 6.0  # the failing target's second attempt waits this long (less a fifth of jitter)
# Where an erasure keeps the user's ids on purpose (docs/operations.md#erasure).
KEEPS_IDS = {b"Tombstone", b"AuditEvent"}


def embedded(data_dir: Path) -> Any:
    return test_settings(
        data_dir,
        falkordb_url=None,
        falkordb_port=free_port(),
        falkordb_graph="engram",
        api_keys={**API_KEYS, ZOE_KEY: ZOE},
        workers=2,
        enrichment_enabled=False,
        session_idle_seconds=3600,
        jobs_max_attempts=2,
        jobs_base_delay_s=RETRY_S,
        jobs_max_delay_s=RETRY_S,
        jobs_sweep_s=1,
        webhook_allowed_cidrs=["127.0.0.0/8"],
    )


async def until(check: Callable[[], Any], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not await _value(check()):
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.1)


async def _value(result: Any) -> Any:
    return await result if asyncio.iscoroutine(result) else result


async def register(client: httpx.AsyncClient, url: str, user_id: str | None, **more: Any) -> str:
    answer = await client.post(
        "/admin/webhooks", json={"url": url, "user_id": user_id, **more}, headers=ADMIN
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


async def webhook_dead_letters(client: httpx.AsyncClient) -> list[dict]:
    letters = (await client.get("/admin/dead-letters", headers=ADMIN)).json()["dead"]
    return [d for d in letters if d["kind"] == "webhook"]


async def webhook_records(url: str, holding: str = "") -> list[bytes]:
    """The webhook jobs' records (those holding this text)."""
    async with redis.from_url(url) as raw:
        keys = [key async for key in raw.scan_iter(match="saq:job:*webhook:*", count=1000)]
        values = [await raw.get(key) or b"" for key in keys]
    return [key for key, value in zip(keys, values, strict=True) if holding.encode() in value]


async def keys_and_values(url: str) -> tuple[bytes, list[bytes]]:
    """Every key but the graph's with its value, and the graph's nodes, one repr each."""
    parts: list[bytes] = []
    nodes: list[bytes] = []
    async with redis.from_url(url) as raw:
        async for key in raw.scan_iter(count=1000):
            kind = (await raw.type(key)).decode()
            if kind == "graphdata":
                rows = await raw.execute_command("GRAPH.RO_QUERY", key, NODES)
                nodes += [repr(row).encode() for row in rows[1]]
            else:
                parts.append(key + b"=" + repr(await read_value(raw, key, kind)).encode())
    return b"\n".join(parts), nodes


NODES = "MATCH (n) RETURN labels(n), properties(n)"


def files_holding(root: Path, needles: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        held = [n for n in needles if n.encode() in data]
        if held:
            found[str(path.relative_to(root))] = held
    return found


def erased_ids(hooks: Receiver) -> set[str]:
    return {
        i
        for r in hooks.at("/up")
        if r.event["type"] == "memory.erased"
        for i in r.event["data"]["memory_ids"]
    }


async def test_erasing_a_user_stops_their_deliveries_and_leaves_no_record_of_their_events(
    tmp_path: Path, caplog: Any
):
    caplog.set_level(logging.WARNING)
    with receiver() as hooks:
        hooks.statuses["/down"] = 503
        async with running_client(embedded(tmp_path)) as client:
            url = client.app.state.runtime.falkordb_server.url
            await register(client, f"{hooks.url}/up", None)  # every user's, every event
            events = ["memory.created", "remember.finished"]
            await register(client, f"{hooks.url}/down", ZOE, events=events)

            headers = {**ZOE_AUTH, "Idempotency-Key": "zoe-first-write"}
            written = await client.post("/memory", json={"content": WRITTEN}, headers=headers)
            assert written.status_code == 201, written.text
            await until(lambda: webhook_dead_letters(client))  # /down failed it twice
            turns = [{"role": "user", "content": TOLD}]
            told = await client.post(
                "/remember", json={"session_id": SESSION, "messages": turns}, headers=ZOE_AUTH
            )
            assert told.status_code == 202, told.text
            finished = "remember.finished"
            await until(lambda: any(r.event["type"] == finished for r in hooks.at("/up")))
            memory_ids = await ids_of_memories(client, ZOE)
            assert len(memory_ids) >= 2
            assert await webhook_records(url, holding=ZOE)  # /down's retries wait

            erased = await client.delete(
                f"/me?confirm={ZOE}&erase=true", headers={"Authorization": f"Bearer {ZOE_KEY}"}
            )
            assert erased.status_code == 200, erased.text
            assert erased.json()["erased"] is True
            reached_down = len(hooks.at("/down"))

            # The erasure's own notices (ids only) still reach the receivers that take them,
            # and a delivered event leaves no record.
            await until(lambda: erased_ids(hooks) >= memory_ids)
            await until(lambda: _none(webhook_records(url)))
            assert await webhook_dead_letters(client) == []
            await asyncio.sleep(RETRY_S + 1.5)  # past the retry /down was waiting for
            assert len(hooks.at("/down")) == reached_down

            keys, nodes = await keys_and_values(url)
            for needle in [ZOE, SESSION, WRITTEN, TOLD, *memory_ids]:
                assert needle.encode() not in keys, needle
            holders = {_label(node) for node in nodes if ZOE.encode() in node}
            assert holders <= KEEPS_IDS | {b"WebhookTarget"}, holders
            for memory_id in memory_ids:
                holders = {_label(node) for node in nodes if memory_id.encode() in node}
                assert holders <= KEEPS_IDS, (memory_id, holders)
            assert not any(SESSION.encode() in node for node in nodes)

            stores_files = tmp_path / "falkordb"
            others = [p for p in tmp_path.iterdir() if p != stores_files]
            for root in others:
                found = files_holding(root, [ZOE, SESSION, WRITTEN, TOLD, *memory_ids])
                assert not found, found
            # FalkorDB's files hold the graph (its tombstones) and the notices queued after the
            # rewrite: ids, never a session id or a text.
            assert not files_holding(stores_files, [SESSION, WRITTEN, TOLD])

    logged = caplog.text  # messages and tracebacks, WARNING and above
    assert "Error processing job" in logged  # /down's failures were logged…
    for needle in [SESSION, WRITTEN, TOLD, *memory_ids, "'event'", "'payload'"]:
        assert needle not in logged, needle  # …by their job's key, not their payload
    assert "Error processing job webhook:" in logged


async def _none(records: Any) -> bool:
    return not await records


def _label(node: bytes) -> bytes:
    return next((label for label in KEEPS_IDS | {b"WebhookTarget"} if label in node), node[:80])


async def ids_of_memories(client: httpx.AsyncClient, user_id: str) -> set[str]:
    """Every memory id the graph holds of the user (facts and transcript turns)."""
    graph = client.app.state.stores.graph
    rows = await graph.ro_query("MATCH (m:Memory {user_id: $u}) RETURN m.id", {"u": user_id})
    return {row[0] for row in rows}
