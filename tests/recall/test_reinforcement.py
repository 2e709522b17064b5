"""Access reinforcement: renews live memories (graph and vector payload), never revives others."""

import asyncio
import contextlib
import logging

from app.recall.access import AccessRecorder
from app.storage.falkordb.server import EmbeddedFalkorDB
from app.storage.graph.records import memory_from_properties
from app.storage.graph.store import GraphStore
from app.storage.mirror import vector_payload
from tests.conftest import ALICE_KEY, auth, free_port, running_client, test_settings
from tests.recall.test_recall import _wait_embedded

H = auth(ALICE_KEY)
TINY_TTL_DAYS = 1 / 86_400  # one second


def _with_embedding_workers(falkordb_url, tmp_path):
    """The local embedder and two workers: recall needs the memory's vector."""
    return test_settings(
        tmp_path,
        falkordb_url=falkordb_url,
        embedding_provider="local",
        embedding_dimensions=None,
        workers=2,
        jobs_sweep_s=1,
    )


async def _memory(client, memory_id: str) -> dict:
    return (await client.get(f"/memory/{memory_id}", headers=H)).json()["memory"]


async def test_an_expired_memory_shown_by_include_decayed_stays_expired(falkordb_url, tmp_path):
    settings = _with_embedding_workers(falkordb_url, tmp_path)
    async with running_client(settings) as client:
        body = {"content": "The parking code for the garage is 4711", "ttl_days": TINY_TTL_DAYS}
        memory_id = (await client.post("/memory", json=body, headers=H)).json()["memory_id"]
        await _wait_embedded(client)
        await asyncio.sleep(1.2)
        before = await _memory(client, memory_id)
        query = {"query": "garage parking code", "include_decayed": "true"}
        shown = (await client.get("/recall", params=query, headers=H)).json()
        assert [r["id"] for r in shown["results"]] == [memory_id]

        assert await client.app.state.runtime.access.flush() == 0
        after = await _memory(client, memory_id)
        assert after["expires_at"] == before["expires_at"]
        assert after["access_count"] == before["access_count"]
        plain = await client.get("/recall", params={"query": "garage parking code"}, headers=H)
        assert plain.json()["results"] == []


async def test_an_archived_memory_is_not_reinforced(falkordb_url, tmp_path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    async with running_client(settings) as client:
        body = {"content": "Old wifi password was hunter2", "ttl_days": 30}
        memory_id = (await client.post("/memory", json=body, headers=H)).json()["memory_id"]
        graph = client.app.state.stores.graph
        await graph.query("MATCH (m:Memory {id: $id}) SET m.archived = true", {"id": memory_id})
        before = await _memory(client, memory_id)
        client.app.state.runtime.access.record(before["user_id"], [memory_id])
        assert await client.app.state.runtime.access.flush() == 0
        assert (await _memory(client, memory_id))["expires_at"] == before["expires_at"]


async def test_a_renewed_expiry_reaches_the_vector_payload(falkordb_url, tmp_path):
    settings = _with_embedding_workers(falkordb_url, tmp_path)
    async with running_client(settings) as client:
        body = {"content": "Alice keeps her passport in the blue drawer", "ttl_days": 30}
        memory_id = (await client.post("/memory", json=body, headers=H)).json()["memory_id"]
        await _wait_embedded(client)
        before = await _memory(client, memory_id)
        await asyncio.sleep(0.01)
        found = await client.get("/recall", params={"query": "passport drawer"}, headers=H)
        assert [r["id"] for r in found.json()["results"]] == [memory_id]
        assert await client.app.state.runtime.access.flush() == 1
        after = await _memory(client, memory_id)
        assert after["expires_at"] > before["expires_at"]
        stores = client.app.state.stores
        props = (
            await stores.graph.ro_query(
                "MATCH (m:Memory {id: $id}) RETURN properties(m)", {"id": memory_id}
            )
        )[0][0]
        record = (await stores.vectors.retrieve([memory_id]))[memory_id]
        assert record.payload == vector_payload(memory_from_properties(props))


async def test_a_flush_during_a_graph_outage_logs_one_line_without_a_traceback(caplog, tmp_path):
    """Found by bench/soak.py: each flush while FalkorDB was down logged a traceback, beside the
    store watch's own line about the outage."""
    server = EmbeddedFalkorDB(data_dir=tmp_path / "falkordb", port=free_port())
    graph = GraphStore(await server.start(), "reinforcement")
    server.kill()
    recorder = AccessRecorder(graph, interval_s=0.01)
    recorder.record("alice", ["m1"])
    caplog.set_level(logging.WARNING, logger="app.recall.access")
    task = asyncio.create_task(recorder.run())
    try:
        while not caplog.records:
            await asyncio.sleep(0.01)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await graph.close()
    first = caplog.records[0]
    assert first.levelno == logging.WARNING and first.exc_info is None
    assert "FalkorDB is unavailable" in first.getMessage()
