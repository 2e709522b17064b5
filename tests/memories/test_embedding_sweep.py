"""A memory left pending with no embed job (its write committed, its enqueue failed: answered
503 while FalkorDB restarted) is embedded by the periodic sweep, with no retry by the client."""

import asyncio
import time
from pathlib import Path

import httpx

from app.wiring.schedule import sweep_pending_embeddings
from tests.conftest import ALICE_KEY, auth, running_client, test_settings

H = auth(ALICE_KEY)
SWEEP = {"workers": 1, "embedding_sweep_interval_s": 0.5, "embedding_sweep_min_age_s": 0.5}


async def status(client: httpx.AsyncClient, memory_id: str) -> str:
    return (await client.get(f"/memory/{memory_id}", headers=H)).json()["memory"][
        "embedding_status"
    ]


async def test_a_pending_memory_without_a_job_is_embedded_by_the_sweep(
    falkordb_url: str, tmp_path: Path
) -> None:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, **SWEEP)
    async with running_client(settings) as client:
        stores = client.app.state.stores
        jobs, stores.jobs = stores.jobs, None  # the write's enqueue does not happen
        try:
            created = await client.post("/memory", json={"content": "Paris in May"}, headers=H)
        finally:
            stores.jobs = jobs
        assert created.status_code == 201, created.text
        memory_id = created.json()["memory_id"]
        assert created.json()["embedding_status"] == "pending"
        assert (await jobs.stats())["embed"]["pending"] == 0  # no job anywhere

        deadline = time.monotonic() + 10  # min age + one interval + the job, with margin
        while await status(client, memory_id) != "done":
            assert time.monotonic() < deadline, "the sweep did not embed the memory"
            await asyncio.sleep(0.1)


async def test_the_sweep_waits_while_embed_jobs_are_queued(
    falkordb_url: str, tmp_path: Path
) -> None:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, workers=0)
    async with running_client(settings) as client:
        runtime = client.app.state.runtime
        queued = await client.post("/memory", json={"content": "Rome in June"}, headers=H)
        assert queued.json()["embedding_status"] == "queued"  # no worker runs it here
        assert await sweep_pending_embeddings(runtime) == 0
