"""Failover under writes: the soak variant that kills the FalkorDB primary.

    .venv/bin/python bench/failover.py            # writes bench/results/2026-12-02-failover.md

A primary, two replicas and three sentinels on free local ports (bench/sentinel_cluster.py;
down-after 1 s); Engram in this process, connected through the sentinels. A few clients write
memories, each with its own Idempotency-Key, retrying a refused write with the same key. Then a
burst of concurrent writes, and the primary is SIGKILLed while the burst is in flight. Measured:
the outage (the kill to the first acknowledged write after it), the 503s and 500s answered, and
the acknowledged writes missing after the failover, with FALKORDB_WAIT_REPLICAS off (0) and on
(1). The "replicas cut off" scenario SIGSTOPs both replicas and closes their links on the primary
(CLIENT KILL TYPE replica) just before the burst, as a slow or broken link would, and resumes
them after the kill: the burst then exists on the primary alone when it dies.
"""

import argparse
import asyncio
import logging
import os
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from app.config import Settings
from app.main import create_app
from bench.sentinel_cluster import SentinelCluster

KEY = "bench-key-0123456789abcdef"
HEADERS = {"Authorization": f"Bearer {KEY}"}
RESULT = Path(__file__).resolve().parent / "results" / "2026-12-02-failover.md"
RETRY_PAUSE_S = 0.1
GIVE_UP_S = 60.0
CUT_OFF = "replicas cut off"
# Under the sentinels' down-after (1 s): a replica stopped longer would be judged down too, and
# could not be promoted.
BURST_BEFORE_KILL_S = 0.8


@dataclass
class Run:
    wait_replicas: int
    scenario: str
    burst_at: float | None = None
    acknowledged: dict[str, str] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)
    killed_at: float | None = None
    acked_at: list[float] = field(default_factory=list)
    first_after_kill: float | None = None
    lost: int = 0

    @property
    def outage_s(self) -> float | None:
        if self.killed_at is None or self.first_after_kill is None:
            return None
        return self.first_after_kill - self.killed_at


def settings_for(data_dir: Path, cluster: SentinelCluster, wait_replicas: int) -> Settings:
    return Settings(
        data_dir=data_dir,
        falkordb_sentinels=cluster.sentinel_addresses,
        falkordb_graph="bench",
        falkordb_wait_replicas=wait_replicas,
        falkordb_wait_timeout_ms=1000,
        qdrant_url=None,
        embedding_provider="hash",
        embedding_dimensions=8,
        workers=0,
        sync_interval_s=0,
        embedding_sweep_interval_s=0,
        drift_check_interval_s=0,
        api_keys={KEY: "bench"},
        generate_local_key=False,
        access_log=False,
        log_level="error",
    )


async def write_until_acknowledged(client: httpx.AsyncClient, run: Run, content: str) -> None:
    """One logical write: retried with its key until a 201 (or GIVE_UP_S)."""
    key, deadline = str(uuid.uuid4()), time.monotonic() + GIVE_UP_S
    while time.monotonic() < deadline:
        sent_at = time.monotonic()
        try:
            answer = await client.post(
                "/memory", json={"content": content}, headers={**HEADERS, "Idempotency-Key": key}
            )
            status = answer.status_code
        except httpx.HTTPError:
            status = 0
        run.statuses[status] = run.statuses.get(status, 0) + 1
        if status == 201:
            run.acknowledged[answer.json()["memory_id"]] = content
            run.acked_at.append(time.monotonic())
            # the outage ends with the first write sent after the kill that is acknowledged
            killed = run.killed_at is not None and sent_at > run.killed_at
            if killed and run.first_after_kill is None:
                run.first_after_kill = time.monotonic()
            return
        await asyncio.sleep(RETRY_PAUSE_S)


async def steady_writer(client: httpx.AsyncClient, run: Run, name: str, stop: asyncio.Event):
    index = 0
    while not stop.is_set():
        await write_until_acknowledged(client, run, f"{name} steady fact {index}")
        index += 1


async def one_run(wait_replicas: int, scenario: str, clients: int, burst: int) -> Run:
    run = Run(wait_replicas, scenario)
    with tempfile.TemporaryDirectory(prefix="engram-failover-") as tmp:
        cluster = SentinelCluster(Path(tmp) / "cluster", replicas=2)
        try:
            await cluster.start()
            app = create_app(settings_for(Path(tmp) / "engram", cluster, wait_replicas))
            async with app.router.lifespan_context(app):
                transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
                async with httpx.AsyncClient(transport=transport, base_url="http://e") as client:
                    await drive(client, cluster, run, clients, burst)
                    run.lost = await count_lost(client, run)
        finally:
            cluster.stop()
    return run


async def drive(
    client: httpx.AsyncClient, cluster: SentinelCluster, run: Run, clients: int, burst: int
) -> None:
    stop = asyncio.Event()
    writers = [
        asyncio.create_task(steady_writer(client, run, f"client{n}", stop)) for n in range(clients)
    ]
    await asyncio.sleep(2.0)
    primary = await cluster.primary_port()
    replicas = [node for node in cluster.data if node.port != primary]
    if run.scenario == CUT_OFF:
        await cut_off(cluster, primary, replicas)
    run.burst_at = time.monotonic()
    bursting = [
        asyncio.create_task(write_until_acknowledged(client, run, f"burst fact {n}"))
        for n in range(burst)
    ]
    await asyncio.sleep(BURST_BEFORE_KILL_S)  # the burst in flight
    await asyncio.to_thread(cluster.node_on(primary).kill)
    run.killed_at = time.monotonic()
    if run.scenario == CUT_OFF:
        for node in replicas:
            assert node.process is not None
            os.kill(node.process.pid, signal.SIGCONT)
    await cluster.wait_for_failover(primary)
    await asyncio.gather(*bursting)
    await asyncio.sleep(1.0)  # writes go on on the new primary
    stop.set()
    await asyncio.gather(*writers)


async def cut_off(cluster: SentinelCluster, primary: int, replicas: list) -> None:
    """Stops the replicas and drops their links, so that the primary's writes reach no one."""
    for node in replicas:
        os.kill(node.process.pid, signal.SIGSTOP)
    admin = cluster.node_on(primary).client()
    try:
        await admin.execute_command("CLIENT", "KILL", "TYPE", "replica")
    finally:
        await admin.aclose()


async def count_lost(client: httpx.AsyncClient, run: Run) -> int:
    """Acknowledged memories the graph no longer has (404, or other content); a 503 is asked
    again, so an unreachable store is never counted as a loss."""
    lost = 0
    for memory_id, content in run.acknowledged.items():
        answer = await client.get(f"/memory/{memory_id}", headers=HEADERS)
        deadline = time.monotonic() + GIVE_UP_S
        while answer.status_code == 503 and time.monotonic() < deadline:
            await asyncio.sleep(RETRY_PAUSE_S)
            answer = await client.get(f"/memory/{memory_id}", headers=HEADERS)
        if answer.status_code == 404:
            lost += 1
        elif answer.status_code != 200 or answer.json()["memory"]["content"] != content:
            raise RuntimeError(f"GET /memory/{memory_id}: {answer.status_code} {answer.text}")
    return lost


def acked_before_kill(run: Run) -> int:
    """Writes acknowledged from the burst (and cut-off) to the kill: those a failover can lose."""
    if run.burst_at is None or run.killed_at is None:
        return 0
    return sum(1 for at in run.acked_at if run.burst_at <= at <= run.killed_at)


def report(runs: list[Run], command: str) -> str:
    lines = [
        "# Failover: SIGKILL of the FalkorDB primary under writes (2026-12-02)",
        "",
        f"Command: `{command}`",
        "",
        "A primary, two replicas and three Redis Sentinels (quorum 2, down-after 1000 ms,",
        "failover-timeout 5000 ms) on 127.0.0.1, every node the bundled redis-server 8.2 with",
        "FalkorDB 4.22.1; Engram in the bench's process through FALKORDB_SENTINELS (hash",
        "embedder, no workers). Writers retry a refused write with its Idempotency-Key every",
        '0.1 s. The burst (concurrent writes) is sent 0.8 s before the kill. In the "replicas cut',
        'off" scenario both replicas are SIGSTOPped and their links closed on the primary (CLIENT',
        "KILL TYPE replica) just before the burst, and resumed right after the kill. Lost: an",
        "acknowledged (201) memory that GET /memory/{id} no longer finds after the failover.",
        "Shared 2-core machine: single runs are indicative (1-minute load average "
        f"{os.getloadavg()[0]:.1f} when the runs ended).",
        "",
        "| WAIT replicas | scenario | acknowledged | of them from the burst to the kill "
        "| lost after failover | outage (kill → first 201) | 503s | 500s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [row(run) for run in runs]
    lines += ["", "Totals per setting:", ""] + totals(runs)
    return "\n".join(lines) + "\n"


def row(run: Run) -> str:
    outage = f"{run.outage_s:.2f} s" if run.outage_s is not None else "—"
    return (
        f"| {run.wait_replicas} | {run.scenario} | {len(run.acknowledged)} | "
        f"{acked_before_kill(run)} | {run.lost} | {outage} | {run.statuses.get(503, 0)} | "
        f"{run.statuses.get(500, 0)} |"
    )


def totals(runs: list[Run]) -> list[str]:
    lines = [
        "| WAIT replicas | scenario | runs | acknowledged from the burst to the kill | lost "
        "| outage min–max |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    settings = dict.fromkeys((run.wait_replicas, run.scenario) for run in runs)
    for wait_replicas, scenario in settings:
        group = [r for r in runs if (r.wait_replicas, r.scenario) == (wait_replicas, scenario)]
        outages = [r.outage_s for r in group if r.outage_s is not None]
        span = f"{min(outages):.2f}–{max(outages):.2f} s" if outages else "—"
        lines.append(
            f"| {wait_replicas} | {scenario} | {len(group)} | "
            f"{sum(acked_before_kill(r) for r in group)} | {sum(r.lost for r in group)} | {span} |"
        )
    return lines


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="runs of each setting")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--burst", type=int, default=40)
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # a stopped run stops its servers
    logging.getLogger("httpx").setLevel(logging.WARNING)
    runs = []
    for wait_replicas in (0, 1):
        for scenario in ("burst", CUT_OFF):
            for _ in range(args.runs):
                run = await one_run(wait_replicas, scenario, args.clients, args.burst)
                print(row(run), flush=True)  # noqa: T201
                runs.append(run)
    command = f".venv/bin/python bench/failover.py --runs {args.runs} --clients {args.clients}"
    command += f" --burst {args.burst}"
    args.out.write_text(report(runs, command))
    print(f"wrote {args.out}")  # noqa: T201


if __name__ == "__main__":
    asyncio.run(main())
