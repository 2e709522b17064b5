"""A/B of /recall latency between two versions of Engram, on this noisy shared machine.

Usage (after `bench/scale.py --keep-data DIR` has built a data set):

    .venv/bin/python bench/recall_ab.py --data DIR --base REF [--base-data DIR] [--queries 400]

or, on a store of LoCoMo dev turns that `bench/concurrency.py --data-dir DIR` built, asking its
questions as that bench does (limit 20, each under its conversation's agent), and reporting each
server's CPU milliseconds per recall too (read from /proc around each call: one server is busy at
a time, so each call's CPU is its own):

    .venv/bin/python bench/recall_ab.py --locomo [PATH] --data DIR --base REF [--queries 400]

A is the git revision REF (checked out in a temporary worktree that uses this checkout's
.venv), B is this working tree. Each gets its own copy of DIR and its own server, started side
by side; one client sends every query to both, alternating which goes first, over keep-alive
`http.client` connections. Only one server is busy at a time, so a slow minute of the machine
hits both alike: the spread between two separate runs of bench/scale.py minutes apart, with
the same code, is far larger than most changes. Reports wall p50/p95, the
server's query_time_ms and steps for each, and how many queries got the same result ids.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import concurrency, locomo, textgen
from bench._engram import percentiles
from bench.scale import Server, StdlibClient, log, own_server

ROOT = Path(__file__).resolve().parents[1]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a bench/scale.py data dir")
    parser.add_argument("--base", default="HEAD~1", help="git revision for A (default HEAD~1)")
    parser.add_argument(
        "--base-data",
        type=Path,
        help="A's own data dir (default: --data), for a change of embedding model: each side "
        "needs a store embedded by its own model, or its start would re-embed the copy",
    )
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--locomo",
        type=Path,
        nargs="?",
        const=locomo.DEFAULT_DATA,
        help="ask LoCoMo questions of a bench/concurrency.py store (default: the dev set)",
    )
    return parser.parse_args()


@contextlib.contextmanager
def worktree(revision: str, where: Path):
    """A checkout of `revision` at `where`, sharing this checkout's .venv."""
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(where), revision],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (where / ".venv").symlink_to(ROOT / ".venv")
    try:
        yield where
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(where)],
            cwd=ROOT,
            check=False,
            capture_output=True,
        )


def main() -> None:
    args = parse_args()
    if args.locomo:
        main_locomo(args)
        return
    people = textgen.personas(args.users, args.seed)
    items = textgen.memories(people, args.memories, args.seed)
    queries = textgen.queries(people, items, args.queries + args.warmup, args.seed)
    scratch = tempfile.TemporaryDirectory(prefix="recall-ab-")
    with scratch, contextlib.ExitStack() as stack:
        work = Path(scratch.name)
        base = stack.enter_context(worktree(args.base, work / "base"))
        servers = {}
        sources = {"A": args.base_data or args.data, "B": args.data}
        for name, root in (("A", base), ("B", ROOT)):
            log(f"copying {sources[name]} for {name}")
            data = work / f"data-{name}"
            shutil.copytree(sources[name], data)
            servers[name] = stack.enter_context(own_server(data, people, args.seed, root=root))
        timed, same = alternate(servers, queries, args.warmup)
    sys.stdout.write(report(args, timed, same))


def main_locomo(args: argparse.Namespace) -> None:
    samples, _ = locomo.load_samples(args.locomo)
    questions = random.Random(args.seed).choices(
        [q for s in samples for q in s.questions], k=args.queries + args.warmup
    )
    scratch = tempfile.TemporaryDirectory(prefix="recall-ab-")
    with scratch, contextlib.ExitStack() as stack:
        work = Path(scratch.name)
        base = stack.enter_context(worktree(args.base, work / "base"))
        servers = {}
        for name, root in (("A", base), ("B", ROOT)):
            log(f"copying {args.data} for {name}")
            data = work / f"data-{name}"
            shutil.copytree(args.data, data, ignore=shutil.ignore_patterns("engram.lock"))
            # No job workers: a background job would add its CPU to the side it ran on.
            servers[name] = concurrency.start(data, "0", root, stack)
        timed, same = alternate_locomo(servers, questions, args.warmup)
    sys.stdout.write(report(args, timed, same))


def alternate_locomo(
    servers: dict[str, concurrency.Engram], questions: list[locomo.Question], warmup: int
) -> tuple[dict[str, dict[str, list[float]]], int]:
    """As `alternate`, with LoCoMo questions, and each call's CPU milliseconds (Engram and its
    FalkorDB) as the measure `cpu`."""
    connections = {name: concurrency.Connection(server.port) for name, server in servers.items()}
    timed: dict[str, dict[str, list[float]]] = {name: {} for name in servers}
    same = 0
    for i, question in enumerate(questions):
        ids = {}
        for name in ("A", "B") if i % 2 == 0 else ("B", "A"):
            before, started = sum(servers[name].cpu()), time.perf_counter()
            body = connections[name].call(
                "GET", concurrency.recall_path(question), None, question.sample_id
            )
            elapsed = (time.perf_counter() - started) * 1000
            cpu_ms = (sum(servers[name].cpu()) - before) * 1000
            ids[name] = [r["id"] for r in body["results"]]
            if i >= warmup:
                figures = timed[name]
                figures.setdefault("wall", []).append(elapsed)
                figures.setdefault("server", []).append(body["query_time_ms"])
                figures.setdefault("cpu", []).append(cpu_ms)
                for step, ms in body["timings_ms"].items():
                    figures.setdefault(step, []).append(ms)
        same += i >= warmup and ids["A"] == ids["B"]
    return timed, same


def alternate(
    servers: dict[str, Server], queries: list[textgen.GenQuery], warmup: int
) -> tuple[dict[str, dict[str, list[float]]], int]:
    """Every query to both servers, A first on even ones; after `warmup`, the wall, server and
    step milliseconds per server, and how many queries got the same result ids from both."""
    clients = {name: StdlibClient(server.base) for name, server in servers.items()}
    timed: dict[str, dict[str, list[float]]] = {name: {} for name in servers}
    same = 0
    for i, query in enumerate(queries):
        ids = {}
        for name in ("A", "B") if i % 2 == 0 else ("B", "A"):
            elapsed, body, error = clients[name].recall(
                servers[name].key(query.user), query.text, None
            )
            if body is None:
                raise SystemExit(f"{name}: {error}")
            ids[name] = [r["id"] for r in body["results"]]
            if i >= warmup:
                figures = timed[name]
                figures.setdefault("wall", []).append(elapsed)
                figures.setdefault("server", []).append(body["query_time_ms"])
                for step, ms in body["timings_ms"].items():
                    figures.setdefault(step, []).append(ms)
        same += i >= warmup and ids["A"] == ids["B"]
    return timed, same


def report(args: argparse.Namespace, timed: dict[str, dict[str, list[float]]], same: int) -> str:
    """A markdown table: wall p50/p95, server p50 and steps per version."""
    lines = [
        f"| {args.queries} queries, alternating | wall p50 | wall p95 | server p50 | CPU ms/recall "
        "(mean) | steps p50 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, figures in timed.items():
        summary = {measure: percentiles(ms) for measure, ms in figures.items()}
        steps = ", ".join(
            f"{step} {summary[step]['p50_ms']:.2f}"
            for step in figures
            if step not in ("wall", "server", "cpu")
        )
        wall, server = summary["wall"], summary["server"]
        cpu = f"{statistics.fmean(figures['cpu']):.2f}" if "cpu" in figures else "-"
        label = f"A ({args.base})" if name == "A" else "B (working tree)"
        lines.append(
            f"| {label} | {wall['p50_ms']:.2f} | {wall['p95_ms']:.2f} | {server['p50_ms']:.2f} "
            f"| {cpu} | {steps} |"
        )
    return "\n".join(lines) + f"\n\nsame result ids: {same}/{args.queries}\n"


if __name__ == "__main__":
    main()
