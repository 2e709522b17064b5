"""POST /consolidate and GET /consolidate/status (AutoMem's shapes), and the schedules: a slot
runs once however many workers tick, on a controllable clock."""

import asyncio
from datetime import UTC, datetime

import httpx
import pytest

from app.jobs.runner import JobRunner
from app.lifecycle.tasks import LIFECYCLE, LifecycleScheduler, Schedule, describe, schedules
from app.storage.graph import lifecycle as store
from app.wiring.schedule import run_every
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, running_client, test_settings

ADMIN = auth(ADMIN_KEY)
DAY = 86_400


def runtime(client: httpx.AsyncClient):
    return client.app.state.runtime  # type: ignore[attr-defined]


async def wait_done(client: httpx.AsyncClient, job_id: str) -> dict:
    for _ in range(400):
        report = (await client.get(f"/admin/jobs/{job_id}", headers=ADMIN)).json()
        if report["state"] in ("done", "dead"):
            return report
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


@pytest.fixture
async def runner(app_client: httpx.AsyncClient):
    jobs = runtime(app_client).jobs
    worker = JobRunner(jobs, concurrency=1, kinds=[LIFECYCLE], deps=runtime(app_client), sweep_s=1)
    await worker.start()
    yield worker
    await worker.stop()


async def test_consolidate_needs_the_admin_key(app_client: httpx.AsyncClient):
    response = await app_client.post(
        "/consolidate", json={"mode": "decay"}, headers=auth(ALICE_KEY)
    )
    assert response.status_code == 403
    assert (await app_client.get("/consolidate/status", headers=auth(ALICE_KEY))).status_code == 403


async def test_an_unknown_mode_is_a_400(app_client: httpx.AsyncClient):
    response = await app_client.post("/consolidate", json={"mode": "identityx"}, headers=ADMIN)
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == "error" and "mode" in body["message"]
    assert "decay, creative, cluster, forget, full" in body["message"]


async def test_a_run_is_a_job_whose_result_is_automems_object(
    app_client: httpx.AsyncClient, runner: JobRunner
):
    await app_client.post(
        "/memory", json={"content": "Some note", "type": "Fact"}, headers=auth(ALICE_KEY)
    )
    response = await app_client.post(
        "/consolidate", json={"mode": "full", "dry_run": False}, headers=ADMIN
    )
    assert response.status_code == 202, response.text
    accepted = response.json()
    assert accepted["status"] == "queued" and accepted["mode"] == "full"
    report = await wait_done(app_client, accepted["job_id"])
    assert report["state"] == "done", report
    result = report["result"]
    assert set(result) == {"mode", "dry_run", "started_at", "steps", "completed_at", "success"}
    assert result["success"] and not result["dry_run"]
    assert set(result["steps"]) == {"decay", "cluster", "forget"}
    assert result["steps"]["decay"]["processed"] >= 1

    dry = await app_client.post("/consolidate", json={"mode": "creative"}, headers=ADMIN)
    assert dry.json()["dry_run"] is True  # AutoMem's default
    await wait_done(app_client, dry.json()["job_id"])

    status = (await app_client.get("/consolidate/status", headers=ADMIN)).json()
    assert status["status"] == "success"
    assert set(status["next_runs"]) >= {"decay", "creative", "cluster", "forget", "identity"}
    assert status["next_runs"]["identity"] == "Disabled"
    assert isinstance(status["thread_alive"], bool) and status["tick_seconds"] > 0
    modes = [run["mode"] for run in status["history"]]
    assert modes[:2] == ["creative", "full"]
    assert status["history"][1]["result"]["decay"]["processed"] >= 1


async def test_history_is_pruned(app_client: httpx.AsyncClient):
    graph = runtime(app_client).stores.graph
    for n in range(5):
        run = {
            "id": f"run-{n}",
            "mode": "decay",
            "task": "decay",
            "success": True,
            "dry_run": True,
            "started_at": f"2026-01-0{n + 1}T00:00:00+00:00",
            "completed_at": f"2026-01-0{n + 1}T00:00:01+00:00",
            "result": {},
            "trigger": "manual",
        }
        await store.record_run(graph, run, keep=3)
    kept = await store.run_history(graph, 10)
    assert len(kept) <= 3


async def test_a_slot_runs_once_with_two_workers(app_client: httpx.AsyncClient):
    deps = runtime(app_client)
    clock = [1_000 * DAY + 3600.0]
    plan = [Schedule("decay", DAY), Schedule("cluster", 0)]
    first = LifecycleScheduler(deps.jobs, plan, clock=lambda: clock[0])
    second = LifecycleScheduler(deps.jobs, plan, clock=lambda: clock[0])
    runners = [
        JobRunner(deps.jobs, concurrency=1, kinds=[LIFECYCLE], deps=deps, sweep_s=1)
        for _ in range(2)
    ]
    for worker in runners:
        await worker.start()
    try:
        ticks = await asyncio.gather(first.tick(), second.tick(), first.tick(), second.tick())
        enqueued = [job for tick in ticks for job in tick]
        assert len(enqueued) == 1
        assert enqueued[0] == f"{LIFECYCLE}:scheduled/decay/1000"
        clock[0] += 3600  # later in the same day: nothing new
        assert await first.tick() == [] and await second.tick() == []
        report = await wait_done(app_client, enqueued[0])
        assert report["state"] == "done"
        clock[0] += DAY  # the next day: one more run
        assert len(await second.tick() + await first.tick()) == 1
        assert await first.tick() == []
        await wait_done(app_client, f"{LIFECYCLE}:scheduled/decay/1001")
    finally:
        for worker in runners:
            await worker.stop()
    history = await store.run_history(deps.stores.graph, 20)
    scheduled = [run for run in history if run["trigger"] == "scheduled"]
    assert len(scheduled) == 2
    runs = await first.next_runs(plan)
    next_day = datetime.fromtimestamp(1_002 * DAY, UTC).isoformat(timespec="seconds")
    assert runs["decay"]["next_run_at"] == next_day
    assert runs["cluster"]["next_run_at"] is None


def test_next_run_wording():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert describe(None, now) == "Disabled"
    assert describe("2026-01-01T00:00:30+00:00", now) == "Due now"
    assert describe("2026-01-01T05:00:00+00:00", now) == "In 5 hour(s)"
    assert describe("2026-01-03T01:00:00+00:00", now) == "In 2 day(s)"


async def test_a_scheduled_fsck_reports_into_the_history(
    app_client: httpx.AsyncClient, runner: JobRunner
):
    deps = runtime(app_client)
    plan = [Schedule("fsck", DAY)]
    (job_id,) = await LifecycleScheduler(deps.jobs, plan, clock=lambda: 2_000 * DAY).tick()
    report = await wait_done(app_client, job_id)
    assert report["state"] == "done", report
    assert report["result"]["mode"] == "fsck"
    assert "checked" in report["result"]["steps"]["fsck"]
    history = await store.run_history(deps.stores.graph, 20)
    assert history[0]["task"] == "fsck" and history[0]["trigger"] == "scheduled"


async def test_a_running_service_and_a_second_worker_run_a_due_task_once(
    falkordb_url: str, tmp_path
):
    settings = test_settings(
        tmp_path,
        falkordb_url=falkordb_url,
        workers=1,
        backlog_scan=False,
        consolidation_tick_s=0.1,
        consolidation_decay_interval_s=DAY,
    )
    async with running_client(settings) as client:
        deps = runtime(client)
        assert deps.scheduler_running  # the service ticks its own scheduler (start_workers)
        # A second worker process, as `python -m app.worker` would run: its own job slots and
        # its own scheduler ticking against the same queue.
        other = JobRunner(deps.jobs, concurrency=1, kinds=[LIFECYCLE], deps=deps, sweep_s=1)
        await other.start()
        ticking = asyncio.create_task(
            run_every(0.1, LifecycleScheduler(deps.jobs, schedules(settings)).tick)
        )
        try:
            for _ in range(100):
                if await store.run_history(deps.stores.graph, 20):
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)  # more ticks of both: still one run
            history = await store.run_history(deps.stores.graph, 20)
            status = (await client.get("/consolidate/status", headers=ADMIN)).json()
        finally:
            ticking.cancel()
            await other.stop()
    assert [(run["task"], run["trigger"]) for run in history] == [("decay", "scheduled")]
    assert status["next_runs"]["decay"].startswith("In ")
    assert status["next_runs"]["forget"] == "Disabled" and status["thread_alive"]
