"""Recall throughput under concurrency, CPU per recall, a mixed load, where a recall's time goes.

One command, one Engram on the embedded default (own FalkorDB server, Qdrant Edge shard, local
embedder, ENGRAM_WORKERS=2), in a temporary data dir or in --data-dir DIR (kept: a second run
with the same DIR skips the ingest and reuses its figures):

1. Ingest: every LoCoMo dev turn through POST /memory/batch (one agent scope per conversation,
   as bench/locomo.py does), then waits until every embed and windows job has run: memories/s
   from the first POST to searchable (both vectors written).
2. Quality, in the same run: every question of categories 1–4 once, one client, GET /recall
   limit 20 with the default parameters: R@10 / R@20 (bench/locomo.py's scoring).
3. Recall load at 1, 8 and 32 concurrent clients (threads, one keep-alive connection each,
   the questions shuffled): recalls/s, wall p50/p95/p99, the server's query_time_ms, the mean
   of every step of timings_ms (and what no step names), and CPU milliseconds per recall: the
   CPU time of the Engram process (all its threads) and of its FalkorDB server over the pass,
   divided by the recalls.
4. Mixed load: 8 clients, --write-share of the requests (35 %) POST /memory into a scope of
   their own, the rest recalls: req/s, each kind's p50/p95, then the seconds until the
   embedding backlog (embed + windows jobs) has drained.
5. Profile: py-spy (requirements-tools.txt) samples the Engram process during an 8-client pass
   of its own (so that its overhead is in no figure above); the functions that hold the most
   samples, by own time and by inclusive time in app/, are printed.

The machine is shared: the CPU figures (3) are the least sensitive to the others' load; wall
figures move with it, so the 1-minute load average is reported beside them.

Usage: .venv/bin/python bench/concurrency.py [--data PATH] [--data-dir DIR] [--clients 1,8,32]
       [--requests 762] [--mixed-requests 1200] [--write-share 0.35] [--profile-seconds 20]
       [--json OUT.json] [--server-root CHECKOUT]  (serve another revision's checkout, for an
       A/B on the same --data-dir: run one after the other, then compare CPU ms per recall)
"""

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench import locomo
from bench._engram import (
    free_port,
    load_average,
    percentiles,
    start_engram,
    stop_engram,
    wait_ready,
)

ROOT = Path(__file__).resolve().parents[1]

USER_KEY = "concurrency-bench-user-key-0123456789"
ADMIN_KEY = "concurrency-bench-admin-key-0123456789"
INGEST_FILE = "concurrency_ingest.json"
MIXED_AGENT = "bench-mixed"
DEPTH = 20
DRAIN_TIMEOUT_S = 1800


def log(message: str) -> None:
    sys.stderr.write(f"[concurrency {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


# --- Processes ---------------------------------------------------------------------------------


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of a process, all its threads (0 if it cannot be read)."""
    if pid is None:
        return 0.0
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Engram:
    base: str
    port: int
    pid: int
    data_dir: Path

    def falkordb_pid(self) -> int | None:
        try:
            return int((self.data_dir / "falkordb" / "redis.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def cpu(self) -> tuple[float, float]:
        """CPU seconds so far of Engram and of its FalkorDB server."""
        return cpu_seconds(self.pid), cpu_seconds(self.falkordb_pid())


# --- Clients -----------------------------------------------------------------------------------


class Connection:
    """One keep-alive HTTP/1.1 connection (the standard library's: the least client CPU)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.auth = {"Authorization": f"Bearer {USER_KEY}"}

    def call(self, method: str, path: str, body: Any = None, agent: str | None = None) -> dict:
        headers = dict(self.auth)
        if agent:
            headers["X-Agent-Id"] = agent
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        raw = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: HTTP {response.status}: {raw[:300]!r}")
        return json.loads(raw)

    def close(self) -> None:
        self.conn.close()


def recall_path(question: locomo.Question) -> str:
    return "/recall?" + urllib.parse.urlencode({"query": question.text, "limit": DEPTH})


@dataclass
class Sample:
    kind: str
    ms: float
    body: dict


@dataclass
class Pass:
    samples: list[Sample] = field(default_factory=list)
    seconds: float = 0.0
    cpu_engram_s: float = 0.0
    cpu_falkordb_s: float = 0.0
    load: float = 0.0


Job = Callable[[Connection], tuple[str, dict]]


def run_pass(engram: Engram, jobs: list[Job], clients: int) -> Pass:
    """Runs `jobs` over `clients` threads, each on its own connection, until none is left."""
    lock, queue, result = threading.Lock(), list(reversed(jobs)), Pass()
    errors: list[BaseException] = []

    def worker() -> None:
        conn = Connection(engram.port)
        try:
            while True:
                with lock:
                    if not queue or errors:
                        return
                    job = queue.pop()
                started = time.perf_counter()
                kind, body = job(conn)
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    result.samples.append(Sample(kind, elapsed, body))
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)
        finally:
            conn.close()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    cpu_before, started = engram.cpu(), time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.seconds = time.perf_counter() - started
    cpu_after = engram.cpu()
    result.cpu_engram_s = cpu_after[0] - cpu_before[0]
    result.cpu_falkordb_s = cpu_after[1] - cpu_before[1]
    result.load = load_average()
    if errors:
        raise RuntimeError(f"a client failed: {errors[0]}") from errors[0]
    return result


def recall_job(question: locomo.Question) -> Job:
    path = recall_path(question)
    return lambda conn: ("recall", conn.call("GET", path, agent=question.sample_id))


def write_job(number: int, text: str) -> Job:
    body = {"content": f"{text} (mixed load {number})", "tags": ["bench-mixed"]}
    return lambda conn: ("write", conn.call("POST", "/memory", body, agent=MIXED_AGENT))


# --- Figures -----------------------------------------------------------------------------------


def step_means(samples: list[Sample]) -> dict[str, float]:
    """Mean milliseconds of each timings_ms step over the recalls, and what no step names
    (query_time_ms minus the steps)."""
    recalls = [s.body for s in samples if s.kind == "recall"]
    if not recalls:
        return {}
    totals: Counter = Counter()
    for body in recalls:
        totals.update(body.get("timings_ms") or {})
    means = {step: round(total / len(recalls), 2) for step, total in sorted(totals.items())}
    server = statistics.fmean(b["query_time_ms"] for b in recalls)
    means["(unnamed)"] = round(server - sum(means.values()), 2)
    means["query_time_ms"] = round(server, 2)
    return means


def load_figures(result: Pass, clients: int) -> dict[str, Any]:
    recalls = [s for s in result.samples if s.kind == "recall"]
    n = len(recalls)
    return {
        "clients": clients,
        "recalls": n,
        "recalls_per_s": round(n / result.seconds, 1),
        **percentiles([s.ms for s in recalls]),
        "server_p50_ms": round(statistics.median(s.body["query_time_ms"] for s in recalls), 2),
        "cpu_ms_per_recall": round(1000 * (result.cpu_engram_s + result.cpu_falkordb_s) / n, 2),
        "engram_cpu_ms_per_recall": round(1000 * result.cpu_engram_s / n, 2),
        "falkordb_cpu_ms_per_recall": round(1000 * result.cpu_falkordb_s / n, 2),
        "steps_ms": step_means(recalls),
        "load": result.load,
    }


def quality(result: Pass, questions: list[locomo.Question]) -> dict[str, Any]:
    """R@10 / R@20 of the 1-client pass (every question once, in order)."""
    rows = [
        locomo.score(q.evidence, locomo.ranked_dia_ids(s.body))
        for q, s in zip(questions, result.samples, strict=True)
    ]
    return {
        "questions": len(rows),
        "r@10": round(statistics.fmean(r["r@10"] for r in rows), 4),
        "r@20": round(statistics.fmean(r["r@20"] for r in rows), 4),
    }


# --- Steps -------------------------------------------------------------------------------------


def ingest(client: httpx.Client, engram: Engram, samples: list[locomo.Sample]) -> dict[str, Any]:
    """Every turn posted, then waited for until searchable; kept in the data dir for reuse."""
    saved = engram.data_dir / INGEST_FILE
    if saved.exists():
        log(f"reusing the ingested data in {engram.data_dir}")
        return {**json.loads(saved.read_text()), "reused": True}
    cpu_before = engram.cpu()
    figures = locomo.ingest(client, samples, DRAIN_TIMEOUT_S)
    cpu_after = engram.cpu()
    figures["memories_per_s"] = round(figures["memories"] / figures["searchable_s"], 1)
    figures["cpu_s"] = round(sum(cpu_after) - sum(cpu_before), 1)
    saved.write_text(json.dumps(figures))
    return figures


def drain_seconds(client: httpx.Client, started: float) -> float:
    """Seconds from `started` until no embed or windows job is outstanding."""
    while locomo.embed_jobs(client)["outstanding"]:
        if time.perf_counter() - started > DRAIN_TIMEOUT_S:
            raise TimeoutError("the embedding backlog did not drain")
        time.sleep(0.25)
    return round(time.perf_counter() - started, 2)


def mixed(
    client: httpx.Client, engram: Engram, questions: list, texts: list[str], args: Any
) -> dict[str, Any]:
    rng = random.Random(7)
    jobs: list[Job] = []
    for number in range(args.mixed_requests):
        if rng.random() < args.write_share:
            jobs.append(write_job(number, rng.choice(texts)))
        else:
            jobs.append(recall_job(rng.choice(questions)))
    result = run_pass(engram, jobs, 8)
    drained = drain_seconds(client, time.perf_counter())
    by_kind = defaultdict(list)
    for sample in result.samples:
        by_kind[sample.kind].append(sample.ms)
    return {
        "clients": 8,
        "requests": len(result.samples),
        "write_share": args.write_share,
        "requests_per_s": round(len(result.samples) / result.seconds, 1),
        **{kind: percentiles(ms) for kind, ms in by_kind.items()},
        "backlog_drained_after_s": drained,
        "load": result.load,
    }


def profile(engram: Engram, questions: list, seconds: int, out: Path) -> dict[str, Any]:
    """py-spy samples Engram during an 8-client pass; the heaviest functions."""
    spy = Path(sys.executable).parent / "py-spy"
    command = [str(spy), "record", "--pid", str(engram.pid), "--duration", str(seconds)]
    command += ["--rate", "200", "--format", "raw", "--output", str(out), "--nonblocking"]
    recorder = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1)
    jobs = [recall_job(q) for q in questions] * 50
    stop = time.monotonic() + seconds - 1

    def limited(job: Job) -> Job:
        def run(conn: Connection) -> tuple[str, dict]:
            if time.monotonic() > stop:
                return "late", {}
            return job(conn)

        return run

    run_pass(engram, [limited(j) for j in jobs], 8)
    _, stderr = recorder.communicate(timeout=seconds + 60)
    if recorder.returncode != 0 or not out.exists():
        return {"error": stderr.decode(errors="replace")[-500:]}
    return summarise_profile(out.read_text())


def summarise_profile(collapsed: str, top: int = 25) -> dict[str, Any]:
    """Own samples per function (the innermost frame) and inclusive samples per app/ function,
    as shares of every sample."""
    own: Counter = Counter()
    inclusive: Counter = Counter()
    total = 0
    for line in collapsed.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count, frames = int(count_text), [frame_name(f) for f in stack.split(";")]
        total += count
        own[frames[-1]] += count
        for name in set(frames):
            if "app/" in name:
                inclusive[name] += count
    share = lambda c: round(100 * c / total, 1)  # noqa: E731
    return {
        "samples": total,
        "own_percent": [(name, share(c)) for name, c in own.most_common(top)],
        "app_inclusive_percent": [(name, share(c)) for name, c in inclusive.most_common(top)],
    }


def frame_name(frame: str) -> str:
    """`function (path:line)` → `function (short path)`: lines of one function merged."""
    function, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    for marker in ("/site-packages/", "/wt-speed/", "/lib/python3.11/"):
        if marker in path:
            path = path.split(marker, 1)[1]
    return f"{function} ({path})"


# --- Report ------------------------------------------------------------------------------------


def markdown(result: dict[str, Any]) -> str:
    lines = [f"commit {result['commit']}, load before {result['load_before']}", ""]
    ing = result["ingest"]
    lines.append(
        f"ingest: {ing['memories']} memories posted in {ing['post_s']} s, searchable after "
        f"{ing['searchable_s']} s = **{ing['memories_per_s']} memories/s**"
        + (" (reused)" if ing.get("reused") else "")
    )
    q = result["quality"]
    lines += ["", f"quality: {q['questions']} questions, R@10 {q['r@10']}, R@20 {q['r@20']}", ""]
    lines.append(
        "| clients | recalls/s | p50 | p95 | p99 | server p50 | CPU ms/recall (Engram + "
        "FalkorDB) | load |"
    )
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in result["load"]:
        lines.append(
            f"| {row['clients']} | {row['recalls_per_s']} | {row['p50_ms']} | {row['p95_ms']} | "
            f"{row['p99_ms']} | {row['server_p50_ms']} | {row['cpu_ms_per_recall']} "
            f"({row['engram_cpu_ms_per_recall']} + {row['falkordb_cpu_ms_per_recall']}) | "
            f"{row['load']} |"
        )
    lines += ["", "mean ms per timings_ms step:", ""]
    for row in result["load"]:
        steps = ", ".join(f"{k} {v}" for k, v in row["steps_ms"].items())
        lines.append(f"- {row['clients']} clients: {steps}")
    m = result["mixed"]
    lines += ["", f"mixed: {json.dumps(m)}", ""]
    prof = result.get("profile") or {}
    if "own_percent" in prof:
        lines += [f"profile ({prof['samples']} samples), own time:", ""]
        lines += [f"- {pct} % {name}" for name, pct in prof["own_percent"]]
        lines += ["", "inclusive, app/ functions:", ""]
        lines += [f"- {pct} % {name}" for name, pct in prof["app_inclusive_percent"]]
    elif prof:
        lines.append(f"profile failed: {prof}")
    return "\n".join(lines) + "\n"


def git_commit(root: Path) -> str:
    run = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True)
    return run.stdout.decode().strip() or "unknown"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--data-dir", type=Path, help="keep (and reuse) the store here")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--requests", type=int, default=762, help="recalls per load pass")
    parser.add_argument("--mixed-requests", type=int, default=1200)
    parser.add_argument("--write-share", type=float, default=0.35)
    parser.add_argument("--profile-seconds", type=int, default=20, help="0: no profile")
    parser.add_argument("--workers", default="2", help="ENGRAM_WORKERS of the server")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    parser.add_argument(
        "--server-root", type=Path, default=ROOT, help="serve from this checkout (an A/B)"
    )
    return parser.parse_args()


def start(data_dir: Path, workers: str, root: Path, stack: ExitStack) -> Engram:
    keys = json.dumps({USER_KEY: "bench"})
    env = {"ENGRAM_API_KEYS": keys, "ENGRAM_ADMIN_KEY": ADMIN_KEY}
    env |= {"ENGRAM_GENERATE_LOCAL_KEY": "false", "SYNC_INTERVAL_S": "0", "LLM_BASE_URL": ""}
    env |= {"ENGRAM_WORKERS": workers, "EMBEDDING_PROVIDER": "local"}
    port = free_port()
    process = start_engram(data_dir, port, free_port(), env=env, root=root)
    stack.callback(stop_engram, process, 180)
    base = f"http://127.0.0.1:{port}"
    wait_ready(base, timeout=600, process=process)
    return Engram(base, port, process.pid, data_dir)


def main() -> None:
    args = parse_args()
    samples, _ = locomo.load_samples(args.data)
    questions = [q for s in samples for q in s.questions]
    texts = [t.content for s in samples for t in s.turns]
    result: dict[str, Any] = {"commit": git_commit(args.server_root), "load_before": load_average()}
    with ExitStack() as stack:
        if args.data_dir:
            args.data_dir.mkdir(parents=True, exist_ok=True)
            data_dir = args.data_dir
        else:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="engram-cc-")))
        engram = start(data_dir, args.workers, args.server_root, stack)
        auth = {"Authorization": f"Bearer {USER_KEY}"}
        client = stack.enter_context(httpx.Client(base_url=engram.base, headers=auth, timeout=60))
        result["ingest"] = ingest(client, engram, samples)
        run_pass(engram, [recall_job(q) for q in questions[:50]], 2)  # warm-up
        log("quality pass (1 client, every question)")
        ordered = run_pass(engram, [recall_job(q) for q in questions], 1)
        result["quality"] = quality(ordered, questions)
        result["load"] = []
        for clients in (int(c) for c in args.clients.split(",")):
            picked = random.Random(clients).choices(questions, k=args.requests)
            log(f"load pass: {clients} clients, {len(picked)} recalls")
            done = run_pass(engram, [recall_job(q) for q in picked], clients)
            result["load"].append(load_figures(done, clients))
        log("mixed pass")
        result["mixed"] = mixed(client, engram, questions, texts, args)
        if args.profile_seconds:
            log("profile pass")
            out = data_dir / "py-spy.collapsed"
            result["profile"] = profile(engram, questions, args.profile_seconds, out)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    sys.stdout.write(markdown(result))


if __name__ == "__main__":
    main()
