"""Backup and restore with the real stores: a store with every kind of record round-trips
exactly, a non-empty target is refused, a damaged archive is refused, and a backup taken
under a write load holds each acknowledged write wholly or not at all."""

import asyncio
import io
import json
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.enrichment.tasks import enrich_memories
from app.memories.tasks import embed_memories
from app.models import to_iso, utc_now
from app.ops.write_gate import WriteGate
from app.storage.graph import snapshot
from app.storage.graph.sessions import touch_session
from tests.conftest import (
    ADMIN_KEY,
    AGENT_KEY,
    ALICE_KEY,
    BOB_KEY,
    auth,
    running_client,
    test_settings,
)

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)
AGENT = auth(AGENT_KEY, "openwebui:helper")


async def make_client(falkordb_url: str, path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with running_client(test_settings(path, falkordb_url=falkordb_url)) as client:
        yield client


@pytest.fixture
async def source(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for client in make_client(falkordb_url, tmp_path / "source"):
        yield client


@pytest.fixture
async def target(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for client in make_client(falkordb_url, tmp_path / "target"):
        yield client


async def store(client: httpx.AsyncClient, content: str, headers=ALICE, **fields: Any) -> str:
    response = await client.post("/memory", json={"content": content, **fields}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


async def store_turns(client: httpx.AsyncClient, *turns: str) -> list[str]:
    body = {"memories": [{"content": t, "source": {"session_id": "chat-1"}} for t in turns]}
    response = await client.post("/memory/batch", json=body, headers=ALICE)
    assert response.status_code == 201, response.text
    return response.json()["memory_ids"]


async def populate(client: httpx.AsyncClient) -> dict[str, list[str]]:
    """Revisions, a tombstone, links, entities, a session, agent scopes, two users."""
    runtime = client.app.state.runtime
    ids = [
        await store(client, "I met Bob Smith at Google's London office.", tags=["work"]),
        await store(client, "Alice prefers green tea in the morning.", importance=0.9),
        await store(client, "The helper agent keeps its own notes.", AGENT),
        await store(client, "Bob's memory about sailing.", BOB),
        *await store_turns(client, "First turn of the chat.", "Second turn of the chat."),
        await store(client, "A memory to delete.", metadata={"k": [1, 2]}),
    ]
    patched = await client.patch(
        f"/memory/{ids[1]}", json={"content": "Alice prefers black tea."}, headers=ALICE
    )
    assert patched.status_code == 200, patched.text
    linked = await client.post(
        "/associate",
        json={"memory1_id": ids[0], "memory2_id": ids[1], "type": "RELATES_TO", "strength": 0.7},
        headers=ALICE,
    )
    assert linked.status_code == 201, linked.text
    assert (await client.delete(f"/memory/{ids[6]}", headers=ALICE)).status_code == 200
    await embed_memories(runtime, "alice", ids[:3] + ids[4:6])
    await embed_memories(runtime, "bob", [ids[3]])
    assert await enrich_memories(runtime, "alice", [ids[0]]) == 1
    await touch_session(
        runtime.stores.graph, "alice", "chat-1", agent_id=None, turns=2, now=to_iso(utc_now())
    )
    return {"alice": ids[:2] + ids[4:6], "agent": [ids[2]], "bob": [ids[3]], "gone": [ids[6]]}


async def backup(client: httpx.AsyncClient, **params: str) -> bytes:
    response = await client.get("/backup", params=params, headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/gzip"
    return response.content


def manifest_of(archive: bytes) -> dict[str, Any]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        assert tar.getnames()[0] == "manifest.json"
        return json.loads(tar.extractfile("manifest.json").read())


async def restore(client: httpx.AsyncClient, archive: bytes, **params: str) -> httpx.Response:
    return await client.post("/admin/restore", content=archive, params=params, headers=ADMIN)


async def view(client: httpx.AsyncClient, ids: dict[str, list[str]]) -> dict[str, Any]:
    """What users see of the store: each memory, its history, links, entities, a recall."""
    seen: dict[str, Any] = {"counts": await snapshot.counts(client.app.state.stores.graph)}
    for who, headers in (("alice", ALICE), ("agent", AGENT), ("bob", BOB), ("gone", ALICE)):
        for memory_id in ids[who]:
            got = await client.get(f"/memory/{memory_id}", headers=headers)
            history = await client.get(f"/memory/{memory_id}/history", headers=headers)
            related = await client.get(f"/memories/{memory_id}/related", headers=headers)
            seen[memory_id] = [got.status_code, got.json(), history.json(), related.json()]
    seen["entities"] = (await client.get("/entities", headers=ALICE)).json()
    recalled = await client.get("/recall", params={"query": "tea"}, headers=ALICE)
    seen["recall"] = [r["id"] for r in recalled.json()["results"]]
    return seen


async def test_backup_restore_round_trip_is_exact(
    source: httpx.AsyncClient, target: httpx.AsyncClient
) -> None:
    ids = await populate(source)
    archive = await backup(source)
    manifest = manifest_of(archive)
    kinds = set(manifest["counts"]["nodes"])
    assert {
        "Memory",
        "Revision",
        "Tombstone",
        "AuditEvent",
        "Entity",
        "Session",
        "Migration",
    } <= kinds
    assert {"RELATES_TO", "PRECEDED_BY"} <= set(manifest["counts"]["relationships"])
    assert manifest["counts"]["memories"] == 6 and manifest["counts"]["vectors"] == 6
    runtime = source.app.state.runtime
    assert manifest["embedding"] == {
        "provider": "hash",
        "model": runtime.embedder.model,
        "dimension": 8,
    }
    assert all(len(part["sha256"]) == 64 for part in manifest["parts"].values())
    assert manifest["schema"]["migrations"]

    restored = await restore(target, archive)
    assert restored.status_code == 200, restored.text
    report = restored.json()
    assert report["verified"] and report["memories"] == 6
    assert report["vectors_restored"] == 6 and report["queued_for_embedding"] == 0
    assert await view(target, ids) == await view(source, ids)


async def test_restore_refuses_a_non_empty_target_unless_forced(
    source: httpx.AsyncClient, target: httpx.AsyncClient
) -> None:
    await store(source, "The only memory in the backup.")
    archive = await backup(source, include="falkordb")
    assert "qdrant/vectors.jsonl" not in manifest_of(archive)["parts"]
    kept = await store(target, "Already here.")
    refused = await restore(target, archive)
    assert refused.status_code == 409 and "not empty" in refused.json()["message"]
    assert (await target.get(f"/memory/{kept}", headers=ALICE)).status_code == 200

    forced = await restore(target, archive, force="true")
    assert forced.status_code == 200 and forced.json()["replaced_existing"]
    assert (await target.get(f"/memory/{kept}", headers=ALICE)).status_code == 404
    # Without saved vectors, every memory gets its keyword point and an embed job.
    assert forced.json()["queued_for_embedding"] == 1
    assert await target.app.state.stores.vectors.count(None) == 1


async def test_a_damaged_or_foreign_archive_is_refused(
    source: httpx.AsyncClient, target: httpx.AsyncClient
) -> None:
    await store(source, "Something to back up.")
    archive = await backup(source)
    damaged = _rewrite(archive, "falkordb/nodes.jsonl", b'{"id":0,"labels":["Memory"]}\n')
    response = await restore(target, damaged)
    assert response.status_code == 400 and "sha256" in response.json()["message"]
    assert (await restore(target, b"not a tar")).status_code == 400
    assert await snapshot.counts(target.app.state.stores.graph) == {
        "nodes": {"Migration": len(manifest_of(archive)["schema"]["migrations"])},
        "relationships": {},
    }


def _rewrite(archive: bytes, name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with (
        tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as src,
        tarfile.open(fileobj=out, mode="w:gz") as dst,
    ):
        for member in src.getmembers():
            body = data if member.name == name else src.extractfile(member).read()
            member.size = len(body)
            dst.addfile(member, io.BytesIO(body))
    return out.getvalue()


async def test_backup_and_restore_are_admin_only(source: httpx.AsyncClient) -> None:
    assert (await source.get("/backup", headers=ALICE)).status_code == 403
    assert (await source.get("/backup")).status_code == 401
    assert (await source.post("/admin/restore", content=b"x", headers=BOB)).status_code == 403
    bad = await source.get("/backup", params={"include": "falkordb,redis"}, headers=ADMIN)
    assert bad.status_code == 400 and "include must be" in bad.json()["message"]


async def test_a_backup_under_write_load_holds_whole_writes(
    source: httpx.AsyncClient, target: httpx.AsyncClient
) -> None:
    """Each write is two turns of a new session in one request: two memories, then (a second
    graph query) the link between them. A restore must never hold one without the other."""
    stop = asyncio.Event()

    async def writer(n: int) -> int:
        done = 0
        while not stop.is_set():
            body = {
                "memories": [
                    {"content": f"w{n} turn one {done}", "source": {"session_id": f"s{n}-{done}"}},
                    {"content": f"w{n} turn two {done}", "source": {"session_id": f"s{n}-{done}"}},
                ]
            }
            response = await source.post("/memory/batch", json=body, headers=ALICE)
            assert response.status_code == 201, response.text
            done += 1
        return done

    writers = [asyncio.create_task(writer(n)) for n in range(4)]
    await asyncio.sleep(0.3)
    archive = await backup(source)
    stop.set()
    assert sum(await asyncio.gather(*writers)) > 0
    restored = await restore(target, archive)
    assert restored.status_code == 200, restored.text
    counts = restored.json()["counts"]
    memories = counts["nodes"]["Memory"]
    assert memories > 0 and memories % 2 == 0
    assert counts["relationships"].get("PRECEDED_BY", 0) == memories // 2


async def test_the_write_gate_holds_writes_only_while_paused() -> None:
    gate = WriteGate()
    entered: list[str] = []

    async def write(name: str) -> None:
        async with gate.writing():
            entered.append(name)
            await asyncio.sleep(0.05)

    first = asyncio.create_task(write("before"))
    await asyncio.sleep(0.01)
    async with gate.paused():
        assert entered == ["before"] and first.done()  # the pause waited for it
        held = asyncio.create_task(write("during"))
        await asyncio.sleep(0.05)
        assert entered == ["before"]  # held, not refused
    await held
    assert entered == ["before", "during"]
