"""Issue row 7: a memory deleted right after it was created never leaves a vector point behind
(the embed job re-checks the memory before and after writing the vector)."""

import asyncio
import random
import time
from pathlib import Path

from tests.conftest import ALICE_KEY, auth, running_client, test_settings

H = auth(ALICE_KEY)
JOBS = {"workers": 4, "jobs_base_delay_s": 0.2, "jobs_max_delay_s": 1.0, "jobs_sweep_s": 1}


async def test_create_then_delete_at_once_leaves_no_orphan_point(falkordb_url: str, tmp_path: Path):
    settings = test_settings(
        tmp_path,
        falkordb_url=falkordb_url,
        enrichment_enabled=False,
        embedding_provider="local",
        embedding_dimensions=None,
        **JOBS,
    )
    async with running_client(settings) as client:
        stores = client.app.state.stores

        async def create_then_delete(i: int) -> str:
            created = await client.post("/memory", json={"content": f"note {i}"}, headers=H)
            memory_id = created.json()["memory_id"]
            await asyncio.sleep(random.random() * 0.3)  # lands inside the embed job at times
            assert (await client.delete(f"/memory/{memory_id}", headers=H)).status_code == 200
            return memory_id

        ids = []
        for start in range(0, 200, 10):
            ids += await asyncio.gather(*(create_then_delete(i) for i in range(start, start + 10)))
        deadline = time.monotonic() + 120
        while True:
            embed = (await client.app.state.runtime.jobs.stats())["embed"]
            if embed["pending"] == embed["in_flight"] == embed["scheduled"] == 0:
                break
            assert time.monotonic() < deadline, embed
            await asyncio.sleep(0.1)
        orphans = await stores.vectors.retrieve(ids)
        assert not orphans, f"{len(orphans)} orphan point(s) of 200 deleted memories"
