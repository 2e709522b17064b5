"""Issue row 6: a vector index that lost its points is noticed by the next health check (and at
start-up), turns /health degraded with sync_status drift_detected, and is repaired by a sync
queued on its own; /ready follows the stores."""

import asyncio
import shutil
import time
from pathlib import Path

import httpx

from app.ops.drift import judge, tolerance
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, free_port, running_client, test_settings

H, ADMIN = auth(ALICE_KEY), auth(ADMIN_KEY)
JOBS = {"workers": 2, "jobs_base_delay_s": 0.2, "jobs_max_delay_s": 1.0, "jobs_sweep_s": 1}


async def health(client: httpx.AsyncClient) -> dict:
    response = await client.get("/health", headers=ADMIN)
    assert response.status_code == 200
    return response.json()


async def test_a_lost_shard_is_noticed_and_repaired_without_an_operator(tmp_path: Path):
    # The embedded default: its new shard is adopted by the deployment (app/storage/identity.py;
    # with FALKORDB_URL that takes ENGRAM_ADOPT_VECTOR_STORE=true).
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=free_port(), enrichment_enabled=False
    )
    async with running_client(settings) as client:
        body = {"memories": [{"content": f"memory number {i}"} for i in range(30)]}
        assert (await client.post("/memory/batch", json=body, headers=H)).status_code == 201
        state = await health(client)
        assert state["sync_status"] == "synced" and state["status"] == "healthy"
    shutil.rmtree(tmp_path / "qdrant")  # the shard is lost while Engram is stopped

    async with running_client(settings) as client:  # no workers: nothing repairs yet
        state = await health(client)
        assert state["status"] == "degraded" and state["degraded"] is True
        assert state["sync_status"] == "drift_detected"
        assert (state["memory_count"], state["vector_count"]) == (30, 0)
        public = (await client.get("/health")).json()  # without a key: the status, no counts
        assert public["sync_status"] == "drift_detected" and "vector_count" not in public
        sync = (await client.app.state.runtime.jobs.stats())["sync"]
        assert sync["pending"] == 1  # queued by the start-up check

    async with running_client(settings.model_copy(update=JOBS)) as client:
        deadline = time.monotonic() + 120
        while (state := await health(client))["sync_status"] != "synced":
            assert time.monotonic() < deadline, state
            await asyncio.sleep(0.5)
        assert state["status"] == "healthy"
        assert state["vector_count"] == state["memory_count"] == 30
        recalled = await client.get("/recall", params={"query": "memory number 7"}, headers=H)
        assert recalled.json()["results"]


def test_small_differences_are_writes_in_flight():
    assert judge(1000, 1000 - tolerance(1000)).status == "synced"
    assert judge(1000, 1000 - tolerance(1000) - 1).status == "drift_detected"
    assert judge(3, 0).status == "synced"
    assert judge(30, 0).status == "drift_detected"
    assert judge(10, 40).status == "orphaned_vectors"


async def test_ready_follows_the_stores(app_client: httpx.AsyncClient):
    response = await app_client.get("/ready")
    assert response.status_code == 200 and response.json() == {"status": "ready"}
