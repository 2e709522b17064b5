"""Issue row 6 and issue 34: a vector index that lost its points is noticed by the next health
check (and at start-up), turns /health degraded with sync_status drift_detected, and is
repaired by a sync queued on its own, whose progress /health shows; a small store's total loss,
a loss that outlives a check and a replaced vector store cannot hide behind the allowance for
writes in flight. /ready follows the stores."""

import asyncio
import shutil
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx

from app.ops.drift import CACHE_S, Counts, judge, tolerance
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, free_port, running_client, test_settings

H, ADMIN = auth(ALICE_KEY), auth(ADMIN_KEY)
JOBS = {"workers": 2, "jobs_base_delay_s": 0.2, "jobs_max_delay_s": 1.0, "jobs_sweep_s": 1}


async def health(client: httpx.AsyncClient) -> dict:
    response = await client.get("/health", headers=ADMIN)
    assert response.status_code == 200
    return response.json()


async def test_a_lost_shard_is_noticed_and_repaired_without_an_operator(tmp_path: Path):
    # The embedded default: its new shard is adopted by the deployment (app/storage/deployment.py;
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
    assert judge(Counts(1000, 1000, 1000 - tolerance(1000))) == "synced"
    assert judge(Counts(1000, 1000, 1000 - tolerance(1000) - 1)) == "drift_detected"
    assert judge(Counts(1000, 0, 1000 - tolerance(1000) - 1)) == "drift_detected"  # pending too
    assert judge(Counts(3, 0, 0)) == "synced"  # not embedded yet: their writes are in flight
    assert judge(Counts(30, 0, 0)) == "drift_detected"
    assert judge(Counts(10, 10, 40)) == "orphaned_vectors"


def test_embedded_memories_without_points_are_never_writes_in_flight_for_long():
    assert judge(Counts(3, 3, 0)) == "drift_detected"  # an empty index: whatever the tolerance
    assert judge(Counts(3, 1, 0)) == "drift_detected"
    assert judge(Counts(3, 3, 1)) == "synced"  # one check allows for the counts' two reads
    assert judge(Counts(3, 3, 1), strict=True) == "drift_detected"  # start-up, or a second look
    assert judge(Counts(3, 0, 1), strict=True) == "drift_detected"
    assert judge(Counts(3, 3, 3), strict=True) == "synced"


async def until(
    client: httpx.AsyncClient, done: Callable[[dict], bool], timeout: float = 120
) -> dict:
    deadline = time.monotonic() + timeout
    while not done(state := await health(client)):
        assert time.monotonic() < deadline, state
        await asyncio.sleep(0.3)
    return state


def counts(state: dict) -> tuple[int, int, int]:
    return state["memory_count"], state["embedded_count"], state["vector_count"]


async def remember(client: httpx.AsyncClient, *contents: str) -> list[str]:
    body = {"memories": [{"content": content} for content in contents]}
    response = await client.post("/memory/batch", json=body, headers=H)
    assert response.status_code == 201
    await until(client, lambda s: s["embedded_count"] == len(contents))
    return response.json()["memory_ids"]


async def recalled(client: httpx.AsyncClient, query: str) -> list[dict]:
    response = await client.get("/recall", params={"query": query}, headers=H)
    return response.json()["results"]


async def test_a_small_store_s_lost_shard_is_drift_and_is_repaired(tmp_path: Path):
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=free_port(), enrichment_enabled=False
    )
    with_jobs = settings.model_copy(update=JOBS)
    async with running_client(with_jobs) as client:
        await remember(client, "the boat is blue", "the car is red", "the bike is green")
    shutil.rmtree(tmp_path / "qdrant")  # issue 34: 3 memories, well inside the tolerance

    async with running_client(settings) as client:  # no workers: nothing repairs yet
        state = await health(client)
        assert state["status"] == "degraded" and state["sync_status"] == "drift_detected"
        assert counts(state) == (3, 3, 0)
        assert state["repair"] == {"state": "queued", "done": 0}
        assert await recalled(client, "the car is red") == []

    async with running_client(with_jobs) as client:
        state = await until(client, lambda s: s.get("repair", {}).get("state") == "done")
        assert state["repair"] == {"state": "done", "done": 3, "total": 3}
        state = await until(client, lambda s: s["status"] == "healthy")
        assert state["sync_status"] == "synced" and state["vector_count"] == 3
        assert await recalled(client, "the car is red")


async def test_points_lost_while_running_show_at_the_next_check(tmp_path: Path):
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=free_port(), enrichment_enabled=False
    )
    async with running_client(settings.model_copy(update=JOBS)) as client:
        ids = await remember(client, "the boat is blue", "the car is red", "the bike is green")
        await asyncio.sleep(CACHE_S)
        assert (await health(client))["sync_status"] == "synced"
        await client.app.state.stores.vectors.delete(ids[:2])

        await asyncio.sleep(CACHE_S)
        state = await health(client)
        assert counts(state) == (3, 3, 1) and state["sync_status"] == "synced"  # maybe in flight
        await asyncio.sleep(CACHE_S)
        state = await health(client)
        assert state["sync_status"] == "drift_detected"  # not in flight any more
        state = await until(client, lambda s: s["status"] == "healthy")
        assert state["vector_count"] == 3 and state["repair"]["state"] == "done"
        assert await recalled(client, "the boat is blue")


async def test_a_replaced_vector_store_is_drift_until_repaired_whatever_the_counts(
    falkordb_url: str, tmp_path: Path
):
    ours, theirs = (f"test_{uuid.uuid4().hex[:12]}" for _ in range(2))
    mine = test_settings(tmp_path / "ours", falkordb_url=falkordb_url, falkordb_graph=ours, **JOBS)
    async with running_client(mine) as client:
        await remember(client, "alpha one", "alpha two", "alpha three")
    other = test_settings(
        tmp_path / "theirs", falkordb_url=falkordb_url, falkordb_graph=theirs, **JOBS
    )
    async with running_client(other) as client:
        await remember(client, "omega one", "omega two", "omega three")

    # Our graph moves to the other graph's shard: as many points as memories, none of them ours.
    moved = test_settings(
        tmp_path / "theirs", falkordb_url=falkordb_url, falkordb_graph=ours, adopt_vector_store=True
    )
    for _ in range(2):  # a restart does not hide it
        async with running_client(moved) as client:
            state = await health(client)
            assert counts(state) == (3, 3, 3)
            assert state["sync_status"] == "drift_detected" and state["status"] == "degraded"
            assert await recalled(client, "alpha two") == []

    async with running_client(moved.model_copy(update=JOBS)) as client:
        state = await until(client, lambda s: s["status"] == "healthy")
        assert state["sync_status"] == "synced" and state["repair"]["state"] == "done"
        assert state["vector_count"] == 3  # theirs deleted as orphans, ours re-created
        assert await recalled(client, "alpha two")
    async with running_client(moved) as client:  # checked: recorded as such
        assert (await health(client))["sync_status"] == "synced"


async def test_ready_follows_the_stores(app_client: httpx.AsyncClient):
    response = await app_client.get("/ready")
    assert response.status_code == 200 and response.json() == {"status": "ready"}
