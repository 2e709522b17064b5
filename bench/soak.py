"""Chaos soak: mixed load on `python -m app` (embedded default, fresh data dir) while Engram and
its FalkorDB server are killed with SIGKILL at random, then proof that nothing acknowledged was
lost, doubled or left half-done.

Load (bench/soak_load.py): `--clients` clients of one user (POST /memory with Idempotency-Key,
retried until acknowledged; PATCH; DELETE; /recall) and of a chat user (/remember), plus
throwaway users filled and erased (DELETE /me?erase=true, DELETE /admin/users/{id}).
Chaos: Engram is killed every 2–5 min and restarted as a supervisor would (after 0–2 s, on the
same data dir and ports: the new process adopts the FalkorDB server the dead one left); the
FalkorDB server (its pid from ENGRAM_DATA_DIR/falkordb/redis.pid) is killed every 3–7 min and
Engram restarts it itself. `--seed` fixes the schedule and the load's choices.

At the end, once the backlog has drained: every acknowledged write present exactly once (by its
content marker), no deleted memory present, every memory embedded (memory, embedded and vector
counts of /health equal), no dead job, a sample of writes found by /recall, the erased users'
texts in no file under the data dir (raw bytes; both stores write text uncompressed), no 5xx
other than 503 and no answer the load did not expect. Exit code 1 if any check fails.

Usage: nice -n 5 .venv/bin/python bench/soak.py [--minutes 30] [--clients 8] [--seed 1]
"""

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from bench import textgen as tg
from bench._engram import free_port, load_average, start_engram
from bench.soak_load import MARKER, Client, Eraser, Ledger

ROOT = Path(__file__).resolve().parents[1]

ADMIN_KEY = "soak-admin-key-0123456789"
RESULTS = ROOT / "bench" / "results" / "2026-12-02-soak.md"
RECALL_SAMPLE = 40


class Supervisor:
    """Runs Engram, kills it on demand and starts it again at once, or after a short delay;
    restarts it too if it exits by itself (counted)."""

    def __init__(self, data_dir: Path, env: dict[str, str], log: Path, rng: random.Random):
        self.data_dir, self.env, self.log, self.rng = data_dir, env, log, rng
        self.port, self.falkor_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.exits: list[int] = []
        self.lock = threading.Lock()

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = start_engram(
                self.data_dir,
                self.port,
                self.falkor_port,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def kill_and_restart(self) -> None:
        with self.lock:
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            time.sleep(self.rng.choice([0.0, self.rng.uniform(0.2, 2.0)]))
            self.start()

    def restart_if_exited(self) -> None:
        with self.lock:
            if self.process is not None and self.process.poll() is not None:
                self.exits.append(self.process.returncode)
                time.sleep(1)
                self.start()

    def stop(self) -> None:
        with self.lock:
            if self.process is None:
                return
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def falkordb_pid(self) -> int | None:
        """The embedded server's pid, as Engram finds it (its pidfile), if that process lives."""
        try:
            pid = int((self.data_dir / "falkordb" / "redis.pid").read_text().strip())
            alive = b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            return None
        return pid if alive else None

    def ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.restart_if_exited()
            try:
                if httpx.get(f"{self.base}/ready", timeout=2).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        return False


def chaos(
    supervisor: Supervisor,
    ledger: Ledger,
    until: float,
    rng: random.Random,
    engram_every: tuple[float, float],
    falkor_every: tuple[float, float],
) -> None:
    """Kills Engram and FalkorDB on a random schedule until `until` (monotonic)."""
    now = time.monotonic()
    next_engram, next_falkor = now + rng.uniform(*engram_every), now + rng.uniform(*falkor_every)
    while True:
        due = min(next_engram, next_falkor)
        while time.monotonic() < min(due, until):
            supervisor.restart_if_exited()
            time.sleep(0.2)
        if time.monotonic() >= until:
            return
        if next_engram <= next_falkor:
            ledger.killed("engram")
            supervisor.kill_and_restart()
            next_engram = time.monotonic() + rng.uniform(*engram_every)
        else:
            supervisor.ready(120)  # a kill during start-up is Engram's own retry, not this test
            pid = supervisor.falkordb_pid()
            if pid is not None:
                ledger.killed("falkordb")
                os.kill(pid, signal.SIGKILL)
            next_falkor = time.monotonic() + rng.uniform(*falkor_every)


def text_source(seed: int) -> Any:
    """Memory bodies drawn from textgen's vocabularies (type, tags, importance, timestamp)."""
    pool = tg.memories(tg.personas(4, seed=seed), 5000, seed=seed)
    return lambda rng: pool[rng.randrange(len(pool))].body()


def drain(admin: httpx.Client, supervisor: Supervisor, timeout_s: float) -> dict[str, Any]:
    """Waits until no job is waiting or running and every memory is embedded with its point."""
    started = time.monotonic()
    last: dict[str, Any] = {}
    settled = 0
    while time.monotonic() - started < timeout_s:
        supervisor.ready(120)
        try:
            jobs = admin.get("/enrichment/status").raise_for_status().json().get("jobs", {})
            health = admin.get("/health").json()
        except httpx.HTTPError:
            time.sleep(1)
            continue
        active = sum(j.get(k, 0) for j in jobs.values() for k in ("pending", "in_flight"))
        counts = [health.get(k) for k in ("memory_count", "embedded_count", "vector_count")]
        last = {"active_jobs": active, "counts": counts, "sync_status": health.get("sync_status")}
        done = active == 0 and len(set(counts)) == 1 and health.get("sync_status") == "synced"
        settled = settled + 1 if done else 0
        if settled >= 3:
            break
        time.sleep(2)
    return {**last, "drained": settled >= 3, "seconds": round(time.monotonic() - started, 1)}


def listed(client: httpx.Client) -> list[dict[str, Any]]:
    """Every memory of the client's scope (not deleted, archived or not), page by page."""
    memories, cursor = [], None
    while True:
        params: dict[str, Any] = {"limit": 200, "state": "all"}
        if cursor:
            params["cursor"] = cursor
        page = client.get("/memory", params=params).raise_for_status().json()
        memories += page["memories"]
        cursor = page.get("next_cursor")
        if not cursor:
            return memories


def is_summary(memory: dict[str, Any]) -> bool:
    """A cluster summary (app/lifecycle/cluster.py): metadata `cluster`, its members' texts."""
    metadata = memory.get("metadata") or {}
    return "cluster" in metadata or len(MARKER.findall(memory.get("content", ""))) > 1


def check_writes(user: httpx.Client, ledger: Ledger) -> dict[str, Any]:
    """Acknowledged writes: each once, under its id; deleted ones gone."""
    held: dict[str, list[str]] = {}
    summaries = 0
    for memory in listed(user):
        if is_summary(memory):  # a cluster summary quotes its members, markers and all
            summaries += 1
            continue
        for marker in set(MARKER.findall(memory.get("content", ""))):
            held.setdefault(marker, []).append(memory["id"])
    uncertain = ledger.delete_unanswered
    expected = {a.marker: a for a in ledger.acked.values() if a.memory_id not in uncertain}
    live = {m: a for m, a in expected.items() if a.memory_id not in ledger.deleted}
    lost = [m for m, a in live.items() if held.get(m) != [a.memory_id]]
    duplicated = [m for m, ids in held.items() if len(ids) > 1]
    deleted_present = [
        a.memory_id
        for a in expected.values()
        if a.memory_id in ledger.deleted
        and (a.marker in held or user.get(f"/memory/{a.memory_id}").status_code != 404)
    ]
    unacknowledged_stored = [m for m in held if m not in {a.marker for a in ledger.acked.values()}]
    return {
        "live_expected": len(live),
        "lost": len([m for m in lost if m not in held]),
        "wrong_id": len([m for m in lost if m in held and len(held[m]) == 1]),
        "duplicated": len(duplicated),
        "deleted_present": len(deleted_present),
        "stored_unacknowledged": len(unacknowledged_stored),
        "cluster_summaries": summaries,
        "examples": {"lost": lost[:5], "doubled": duplicated[:5], "deleted": deleted_present[:5]},
    }


def check_recall(user: httpx.Client, ledger: Ledger, rng: random.Random) -> dict[str, int]:
    live = [a for a in ledger.acked.values() if a.memory_id not in ledger.deleted]
    live = [a for a in live if a.memory_id not in ledger.delete_unanswered]
    sample = rng.sample(live, min(RECALL_SAMPLE, len(live)))
    found = 0
    for acked in sample:
        body = user.get("/recall", params={"query": acked.content, "limit": 10}).json()
        found += acked.memory_id in {r.get("id") for r in body.get("results", [])}
    return {"sampled": len(sample), "found": found}


def secrets_on_disk(data_dir: Path, ledger: Ledger) -> list[str]:
    """Files under the data dir holding any erased user's secret token (raw bytes)."""
    tokens = [text.split()[2].encode() for erased in ledger.erased for text in erased.texts]
    found = []
    for path in sorted(p for p in data_dir.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if any(token in data for token in tokens):
            found.append(str(path.relative_to(data_dir)))
    return found


def recovery(ledger: Ledger, kind: str) -> dict[str, Any]:
    kills = [k for k in ledger.kills if k.kind == kind]
    times = [k.recovery_s for k in kills if k.recovery_s is not None]
    return {
        "kills": len(kills),
        "recovered": len(times),
        "p50_s": round(statistics.median(times), 2) if times else None,
        "max_s": round(max(times), 2) if times else None,
    }


def log_lines(log: Path) -> dict[str, int]:
    text = log.read_text(errors="replace")
    return {"tracebacks": text.count("Traceback"), "errors": text.count(" ERROR ")}


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    users = {"soak": "soak-user-key-0001", "chat": "soak-chat-key-0001"}
    erasures = max(2, round(args.minutes / 3))
    users |= {f"gone-{n:02d}": f"soak-gone-key-{n:02d}" for n in range(erasures)}
    env = {
        "ENGRAM_API_KEYS": json.dumps({key: user for user, key in users.items()}),
        "ENGRAM_ADMIN_KEY": ADMIN_KEY,
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "ENGRAM_LOG_FORMAT": "text",
        "LLM_BASE_URL": "",
        "REMEMBER_RATE_PER_MINUTE": "100000",
        "PYTHONPATH": str(ROOT),
    }
    work = Path(tempfile.mkdtemp(prefix="engram-soak-"))
    data_dir, log = work / "data", work / "engram.log"
    supervisor = Supervisor(data_dir, env, log, random.Random(f"{args.seed}-supervisor"))
    ledger, stop = Ledger(), threading.Event()
    supervisor.start()
    if not supervisor.ready(180):
        raise SystemExit(f"Engram did not start; see {log}")
    started = time.monotonic()
    texts = text_source(args.seed)
    threads: list[threading.Thread] = [
        Client(n, supervisor.base, users, ledger, texts, stop, args.seed, args.pause)
        for n in range(args.clients)
    ]
    threads.append(
        Eraser(supervisor.base, users, ADMIN_KEY, ledger, args.minutes * 60 / (erasures + 1), stop)
    )
    for thread in threads:
        thread.start()
    until = started + args.minutes * 60
    chaos(supervisor, ledger, until, rng, tuple(args.engram_kill), tuple(args.falkor_kill))
    stop.set()
    for thread in threads:
        thread.join(timeout=600)
    load_s = time.monotonic() - started
    admin = httpx.Client(
        base_url=supervisor.base, headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=60
    )
    user = httpx.Client(
        base_url=supervisor.base, headers={"Authorization": f"Bearer {users['soak']}"}, timeout=60
    )
    drained = drain(admin, supervisor, args.drain_timeout)
    writes = check_writes(user, ledger)
    health = admin.get("/health").json()
    dead = admin.get("/admin/dead-letters").raise_for_status().json()["dead"]
    recalled = check_recall(user, ledger, rng)
    load = load_average()
    supervisor.stop()
    falkordb_left = supervisor.falkordb_pid()  # a clean stop must stop the server it owns
    if falkordb_left is not None:
        os.kill(falkordb_left, signal.SIGTERM)
    on_disk = secrets_on_disk(data_dir, ledger)
    server_errors = sum(n for code, n in ledger.statuses.items() if code >= 500 and code != 503)
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join(["bench/soak.py", *sys.argv[1:]]),
        "minutes": round(load_s / 60, 1),
        "clients": args.clients,
        "pause_s": args.pause,
        "seed": args.seed,
        "writes_acknowledged": len(ledger.acked),
        "writes_unacknowledged": ledger.unacknowledged,
        "patched": len(ledger.patched),
        "deleted": len(ledger.deleted),
        "remember_acknowledged": ledger.remembered,
        "engram": recovery(ledger, "engram"),
        "falkordb": recovery(ledger, "falkordb"),
        "engram_exits_by_itself": supervisor.exits,
        "answers": {str(k): v for k, v in sorted(ledger.statuses.items())},
        "answered_503": ledger.statuses.get(503, 0),
        "server_errors": server_errors,
        "connection_errors": dict(ledger.connection_errors),
        "unexpected": ledger.unexpected[:20],
        "unexpected_count": len(ledger.unexpected),
        "drain": drained,
        "checks": writes,
        "counts": {
            "memories": health.get("memory_count"),
            "embedded": health.get("embedded_count"),
            "vectors": health.get("vector_count"),
            "sync_status": health.get("sync_status"),
        },
        "dead_jobs": len(dead),
        "dead_examples": [
            {"kind": d.get("kind"), "error": str(d.get("error"))[:200]} for d in dead[:5]
        ],
        "recall": recalled,
        "erasures": [
            {"user": e.user, "how": e.how, "disk_clean": e.disk_clean} for e in ledger.erased
        ],
        "erased_text_found_in": on_disk,
        "falkordb_left_running": falkordb_left is not None,
        "log": log_lines(log),
        "load_average": load,
        "work_dir": str(work),
    }


def failures(result: dict[str, Any]) -> list[str]:
    checks, counts = result["checks"], result["counts"]
    found = [
        f"{name}: {checks[name]}"
        for name in ("lost", "wrong_id", "duplicated", "deleted_present")
        if checks[name]
    ]
    if len({counts["memories"], counts["embedded"], counts["vectors"]}) != 1:
        found.append(f"drift: {counts}")
    if result["dead_jobs"]:
        found.append(f"dead jobs: {result['dead_jobs']}")
    if result["server_errors"] or result["unexpected_count"]:
        found.append(f"unexpected answers: {result['unexpected_count']}")
    if result["recall"]["found"] != result["recall"]["sampled"]:
        found.append(f"recall: {result['recall']}")
    if result["erased_text_found_in"] or not result["erasures"]:
        found.append(f"erasure: {result['erased_text_found_in'] or 'none ran'}")
    if result["falkordb_left_running"]:
        found.append("the FalkorDB server outlived a clean stop of Engram")
    if not result["drain"]["drained"]:
        found.append(f"backlog not drained: {result['drain']}")
    return found


def report(result: dict[str, Any], failed: list[str]) -> str:
    e, f, c = result["engram"], result["falkordb"], result["checks"]
    counts, recall, logged = result["counts"], result["recall"], result["log"]
    drift = f"{counts['memories']} / {counts['embedded']} / {counts['vectors']}"
    rows = [
        ("minutes of load", result["minutes"]),
        ("clients (think time between requests)", f"{result['clients']} ({_pause(result)})"),
        ("writes acknowledged (POST /memory)", result["writes_acknowledged"]),
        ("PATCH / DELETE acknowledged", f"{result['patched']} / {result['deleted']}"),
        ("/remember acknowledged", result["remember_acknowledged"]),
        ("user erasures (disk clean in the answer)", _erasures(result)),
        ("Engram kills (SIGKILL), recovered", f"{e['kills']}, {e['recovered']}"),
        ("FalkorDB kills (SIGKILL), recovered", f"{f['kills']}, {f['recovered']}"),
        ("recovery, kill → first acknowledged write, p50 / max: Engram", _rec(e)),
        ("recovery, p50 / max: FalkorDB", _rec(f)),
        ("answered 503", result["answered_503"]),
        ("connection errors", sum(result["connection_errors"].values())),
        ("server errors (5xx but 503) / other unexpected answers", _unexpected(result)),
        ("lost / duplicated / deleted but present", _lost(c)),
        ("memories / embedded / vectors after the drain", drift),
        ("dead jobs", result["dead_jobs"]),
        ("recall finds sampled writes", f"{recall['found']} of {recall['sampled']}"),
        ("erased text in files under the data dir", len(result["erased_text_found_in"])),
        ("backlog drain after the load", f"{result['drain']['seconds']} s"),
        ("log: tracebacks / ERROR lines", f"{logged['tracebacks']} / {logged['errors']}"),
    ]  # fmt: skip
    table = "\n".join(f"| {name} | {value} |" for name, value in rows)
    verdict = "all checks passed" if not failed else "FAILED: " + "; ".join(failed)
    return (
        f"# Chaos soak, {result['date']}\n\n"
        "Machine: the shared 2-core VM, loaded by other work throughout "
        f"(1-minute load average {result['load_average']} at the end).\n\n"
        f"Command: `nice -n 5 .venv/bin/python {result['command']}` (seed {result['seed']}; "
        "`python -m app` on the embedded default, local embedder, no LLM, a fresh data dir).\n\n"
        f"| figure | value |\n| --- | --- |\n{table}\n\n"
        f"Verdict: {verdict}.\n\n"
        f"Answers by status: `{json.dumps(result['answers'])}`; connection errors by kind: "
        f"`{json.dumps(result['connection_errors'])}`; Engram exits by itself (restarted): "
        f"{result['engram_exits_by_itself'] or 'none'}.\n"
    )


def _pause(result: dict[str, Any]) -> str:
    return f"0–{2 * result['pause_s']:g} s, mean {result['pause_s']:g} s"


def _rec(kind: dict[str, Any]) -> str:
    return f"{kind['p50_s']} / {kind['max_s']} s" if kind["p50_s"] is not None else "—"


def _lost(checks: dict[str, Any]) -> str:
    lost = checks["lost"] + checks["wrong_id"]
    return f"{lost} / {checks['duplicated']} / {checks['deleted_present']}"


def _unexpected(result: dict[str, Any]) -> str:
    return f"{result['server_errors']} / {result['unexpected_count'] - result['server_errors']}"


def _erasures(result: dict[str, Any]) -> str:
    """DELETE /me answers no disk check; the admin's erasure does."""
    admin = [e for e in result["erasures"] if e["how"] == "admin"]
    clean = sum(1 for e in admin if e["disk_clean"])
    return f"{len(result['erasures'])} ({clean} of {len(admin)} admin answers)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pause", type=float, default=2.5, help="mean think time of a client (s); 0: a flood"
    )
    parser.add_argument("--drain-timeout", type=float, default=1800, metavar="S")
    parser.add_argument("--engram-kill", type=float, nargs=2, default=(120, 300), metavar="S")
    parser.add_argument("--falkor-kill", type=float, nargs=2, default=(180, 420), metavar="S")
    parser.add_argument("--out", type=Path, default=RESULTS, help="the results file (md)")
    args = parser.parse_args()
    result = run(args)
    failed = failures(result)
    print(json.dumps(result, indent=2))  # noqa: T201
    args.out.write_text(report(result, failed))
    verdict = "all checks passed" if not failed else "; ".join(failed)
    print(f"\nwritten {args.out}; {verdict}")  # noqa: T201
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
