"""Embeddings as durable jobs, end to end: queued on write, made by workers, never faked."""

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from app.scope import Scope
from app.storage.mirror import embedding_text
from app.storage.vectors import VectorDimensionMismatch, VectorFilter
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, free_port, running_client, test_settings
from tests.fake_openai import FakeOpenAI, FakeOpenAIConfig

H, ADMIN = auth(ALICE_KEY), auth(ADMIN_KEY)
FAST_JOBS = {"workers": 2, "jobs_base_delay_s": 0.2, "jobs_max_delay_s": 1.0, "jobs_sweep_s": 1}


async def wait_until(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.1)


async def memory(client: httpx.AsyncClient, memory_id: str) -> dict:
    return (await client.get(f"/memory/{memory_id}", headers=H)).json()["memory"]


async def embedded(client: httpx.AsyncClient, memory_id: str) -> bool:
    return (await memory(client, memory_id))["embedding_status"] == "done"


async def stored_text(client: httpx.AsyncClient, memory_id: str) -> str:
    """The text the embedder was given for a memory: "[day Month year] content"."""
    stored = (await client.app.state.stores.graph.memories_of_user("alice", [memory_id]))[0]
    return embedding_text(stored, with_date=True)


async def job_done(client: httpx.AsyncClient, job_id: str) -> dict:
    async def finished() -> bool:
        state = (await client.get(f"/admin/jobs/{job_id}", headers=ADMIN)).json()["state"]
        return state in ("done", "dead")

    await wait_until(finished)
    return (await client.get(f"/admin/jobs/{job_id}", headers=ADMIN)).json()


async def test_write_queues_an_embedding_that_a_worker_makes(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, **FAST_JOBS)
    async with running_client(settings) as client:
        created = (
            await client.post("/memory", json={"content": "Paris is lovely"}, headers=H)
        ).json()
        assert created["embedding_status"] == "queued"
        await wait_until(lambda: embedded(client, created["memory_id"]))

        runtime = client.app.state.runtime
        query = await runtime.embedder.embed_query(await stored_text(client, created["memory_id"]))
        hits = await runtime.stores.vectors.search_dense(query, VectorFilter(Scope("alice")), 1)
        assert hits[0].id == created["memory_id"] and hits[0].score > 0.99

        status = (await client.get("/enrichment/status", headers=H)).json()
        assert status["jobs"]["embed"]["done"] >= 1 and status["workers"] == 2


async def test_content_patch_re_embeds(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, **FAST_JOBS)
    async with running_client(settings) as client:
        memory_id = (await client.post("/memory", json={"content": "old words"}, headers=H)).json()[
            "memory_id"
        ]
        await wait_until(lambda: embedded(client, memory_id))
        await client.patch(f"/memory/{memory_id}", json={"content": "brand new text"}, headers=H)
        await wait_until(lambda: embedded(client, memory_id))
        runtime = client.app.state.runtime
        text = await stored_text(client, memory_id)
        assert text.endswith("] brand new text")
        query = await runtime.embedder.embed_query(text)
        hits = await runtime.stores.vectors.search_dense(query, VectorFilter(Scope("alice")), 1)
        assert hits[0].id == memory_id and hits[0].score > 0.99


async def test_embedder_outage_degrades_then_recovers(falkordb_url: str, tmp_path: Path):
    with FakeOpenAI(FakeOpenAIConfig(dimension=8)) as server:
        settings = test_settings(
            tmp_path,
            falkordb_url=falkordb_url,
            embedding_provider="openai",
            embedding_base_url=server.base_url,
            embedding_model="fake-embed",
            embedding_max_retries=0,
            **FAST_JOBS,
        )
        async with running_client(settings) as client:
            server.config.fail_times = 10**6  # the provider goes down
            response = await client.post(
                "/memory", json={"content": "written in the outage"}, headers=H
            )
            assert response.status_code == 201
            memory_id = response.json()["memory_id"]

            async def degraded() -> bool:
                body = (await client.get("/health")).json()
                return body["degraded"] and body["embedder"]["state"] != "ok"

            await wait_until(degraded)
            assert (await memory(client, memory_id))["embedding_status"] == "pending"
            points = await client.app.state.stores.vectors.retrieve([memory_id])
            assert points[memory_id].has_dense is False  # no placeholder vector, ever

            server.config.fail_times = 0  # the provider is back
            await wait_until(lambda: embedded(client, memory_id))
            health = (await client.get("/health")).json()
            assert health["embedder"]["state"] == "ok" and health["degraded"] is False


async def test_failed_embedding_ends_dead_and_marked_failed_then_retries(
    falkordb_url: str, tmp_path: Path
):
    with FakeOpenAI(FakeOpenAIConfig(dimension=8, fail_times=10**6, fail_status=400)) as server:
        settings = test_settings(
            tmp_path,
            falkordb_url=falkordb_url,
            embedding_provider="openai",
            embedding_base_url=server.base_url,
            embedding_model="fake-embed",
            jobs_max_attempts=2,
            **FAST_JOBS,
        )
        async with running_client(settings) as client:
            memory_id = (
                await client.post("/memory", json={"content": "doomed"}, headers=H)
            ).json()["memory_id"]

            async def failed() -> bool:
                return (await memory(client, memory_id))["embedding_status"] == "failed"

            await wait_until(failed)
            dead = (await client.get("/admin/dead-letters", headers=ADMIN)).json()["dead"]
            assert dead and "400" in dead[0]["error"]
            status = (await client.get("/enrichment/status", headers=H)).json()
            assert status["jobs"]["embed"]["dead"] == 1

            server.config.fail_times = 0
            retried = await client.post(f"/admin/jobs/{dead[0]['job_id']}/retry", headers=ADMIN)
            assert retried.status_code == 202
            await wait_until(lambda: embedded(client, memory_id))


async def test_restart_with_1000_pending_embeddings_loses_none(falkordb_url: str, tmp_path: Path):
    quiet = test_settings(tmp_path, falkordb_url=falkordb_url)  # workers=0: jobs pile up
    async with running_client(quiet) as client:
        ids = []
        for i in range(1000):
            response = await client.post(
                "/memory", json={"content": f"pending memory {i}"}, headers=H
            )
            ids.append(response.json()["memory_id"])
        assert (await client.get("/enrichment/status", headers=H)).json()["jobs"]["embed"][
            "pending"
        ] == 1000

    busy = quiet.model_copy(update={"workers": 4, "jobs_sweep_s": 1})
    async with running_client(busy) as client:
        stores = client.app.state.stores

        async def all_embedded_and_drained() -> bool:
            if await stores.graph.unembedded(after="", limit=1):
                return False
            embed = (await client.get("/enrichment/status", headers=H)).json()["jobs"]["embed"]
            return embed["pending"] == 0 and embed["in_flight"] == 0

        await wait_until(all_embedded_and_drained, timeout=240)
        points = await stores.vectors.retrieve(ids)
        assert len(points) == 1000 and all(p.has_dense for p in points.values())
        versions = {m.version for m in await stores.graph.memories_of_user("alice", ids)}
        assert versions == {1}  # embedding never rewrote a memory
        status = (await client.get("/enrichment/status", headers=H)).json()["jobs"]["embed"]
        assert status["dead"] == 0 and status["pending"] == 0


async def test_sync_repairs_missing_orphan_and_stale_points(falkordb_url: str, tmp_path: Path):
    # Without enrichment, whose payload refresh would repair the stale point before sync does.
    settings = test_settings(
        tmp_path, falkordb_url=falkordb_url, enrichment_enabled=False, **FAST_JOBS
    )
    async with running_client(settings) as client:
        stores = client.app.state.stores
        ids = [
            (
                await client.post(
                    "/memory", json={"content": f"kept {i}", "tags": ["t"]}, headers=H
                )
            ).json()["memory_id"]
            for i in range(3)
        ]
        for memory_id in ids:
            await wait_until(lambda memory_id=memory_id: embedded(client, memory_id))
        lost, stale = ids[0], ids[1]
        orphan = "11111111-1111-4111-8111-111111111111"
        await stores.vectors.delete([lost])
        await stores.vectors.set_payload(stale, {"user_id": "alice", "tags": ["wrong"]})
        await stores.vectors.upsert([_orphan_point(orphan)])

        accepted = (await client.post("/admin/sync", json={}, headers=ADMIN)).json()
        report = (await job_done(client, accepted["job_id"]))["result"]
        assert report["missing_points"] == [lost] and report["orphan_points"] == [orphan]
        assert report["stale_payloads"] == [stale]

        await wait_until(lambda: embedded(client, lost))
        points = await stores.vectors.retrieve([lost, stale, orphan])
        assert points[lost].has_dense and orphan not in points
        assert points[stale].payload["tags"] == ["t"]

        again = (await client.post("/admin/sync", json={"repair": False}, headers=ADMIN)).json()
        assert (await job_done(client, again["job_id"]))["result"]["drift"] == 0


def _orphan_point(point_id: str):
    from app.storage.vectors import VectorPoint

    return VectorPoint(id=point_id, dense=[0.1] * 8, text="ghost", payload={"user_id": "alice"})


async def test_reembed_all_reports_progress(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, **FAST_JOBS)
    async with running_client(settings) as client:
        items = [{"content": f"batch item {i}"} for i in range(40)]
        await client.post("/memory/batch", json={"memories": items}, headers=H)
        assert (await client.post("/admin/reembed", json={}, headers=H)).status_code == 403
        accepted = (await client.post("/admin/reembed?wait=false", json={}, headers=ADMIN)).json()
        report = await job_done(client, accepted["job_id"])
        assert report["state"] == "done"
        assert report["progress"]["embedded"] == 40 and report["progress"]["total"] == 40


async def test_vector_size_mismatch_refuses_to_start(tmp_path: Path):
    port = free_port()
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=port, falkordb_graph="engram"
    )
    async with running_client(settings):
        pass
    bigger = settings.model_copy(update={"embedding_dimensions": 16})
    with pytest.raises(VectorDimensionMismatch, match="re-embed|reembed"):
        async with running_client(bigger):
            pass
