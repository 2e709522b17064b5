"""Each recall step earns its place: R@1 / R@10 on both dev genres with one step off at a time,
and the server's CPU ms per recall.

Runs on two stores the benchmarks left behind (nothing is ingested here):
- `--locomo DIR`: a store made by bench/locomo.py through a server on DIR (its `api_key` file),
  e.g. `.venv/bin/python bench/locomo.py --base-url …` against `python -m app` on DIR;
- `--lme DIR`: a store made by `bench/longmemeval.py --keep-data DIR` (its per-turn path).
For each ablation Engram is started on each store (with the ablation's environment, when it has
one), every question is asked (with the ablation's request parameters, when it has some), and the
server's CPU time (user + system, its FalkorDB server's included) is divided by the questions.
Quality figures do not depend on the machine's load; the CPU figures do a little: take them on a
quiet machine (the load average is reported).

Usage: .venv/bin/python bench/recall_ablation.py --locomo DIR --lme DIR [--only a,b]
       [--lme-data PATH] [--lme-distractors N] [--engram-root CHECKOUT] [--out PATH]
(--engram-root runs the servers from another checkout: `--only engram` there is the revision's
figures on the same stores, for a before/after)
"""

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from bench import locomo, longmemeval
from bench._engram import free_port, load_average, start_engram, stop_engram, wait_ready

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "bench" / "results" / "recall-ablation.json"

# name: (request parameters, environment). "engram" is everything on.
ABLATIONS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "engram": ({}, {}),
    "no rerank (match only)": ({"rerank": "false"}, {}),
    "no floor or gate": ({"relevance_floor": "0"}, {}),
    "no dense": ({"channels": "bm25,context,window"}, {}),
    "no bm25": ({"channels": "dense,context,window"}, {}),
    "no window": ({"channels": "dense,bm25,context"}, {}),
    "no context lift": ({"channels": "dense,bm25,window"}, {}),
    "with prf 0.6 (the earlier default)": ({}, {"RECALL_WEIGHT_PRF": "0.6"}),
    "no question penalty": ({}, {"RECALL_WEIGHT_QUESTION": "0"}),
    "no speaker": ({}, {"RECALL_WEIGHT_SPEAKER": "0"}),
    "no name terms": ({}, {"RECALL_WEIGHT_NAME_LEAD": "0", "RECALL_WEIGHT_NAME_MENTION": "0"}),
    "no importance/confidence": (
        {},
        {"RECALL_WEIGHT_IMPORTANCE": "0", "RECALL_WEIGHT_CONFIDENCE": "0"},
    ),
    "no recency/relevance": ({}, {"RECALL_WEIGHT_RECENCY": "0", "RECALL_WEIGHT_RELEVANCE": "0"}),
    "dense with names": ({}, {"RECALL_DENSE_WITHOUT_NAMES": "false"}),
    "no latest lift (questions about now)": ({}, {"RECALL_WEIGHT_LATEST": "0"}),
    "no names never said": ({}, {"RECALL_UNSAID_NAMES": "false"}),
}
# Variants tried beside the ablations (--only NAME): a weight other than the default.
VARIANTS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "speaker 0.5": ({}, {"RECALL_WEIGHT_SPEAKER": "0.5"}),
    "speaker 0.7": ({}, {"RECALL_WEIGHT_SPEAKER": "0.7"}),
    "bm25 1.5 (the earlier default)": ({}, {"RECALL_WEIGHT_BM25": "1.5"}),
    "window 0.5": ({}, {"RECALL_WEIGHT_WINDOW": "0.5"}),
    "context 0.25": ({}, {"RECALL_WEIGHT_CONTEXT": "0.25"}),
}
LME_USER_KEY = longmemeval.user_key("memory")


def log(message: str) -> None:
    sys.stderr.write(f"[ablation] {message}\n")
    sys.stderr.flush()


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU seconds of these processes and their children so far (Linux /proc)."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15]) / ticks  # utime stime cutime cstime
    return total


def server_pids(root_pid: int) -> list[int]:
    """The server and its children (the embedded FalkorDB)."""
    found = [root_pid]
    for task in Path(f"/proc/{root_pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(p) for p in (task / "children").read_text().split()]
    return found


ENGRAM_ROOT = [ROOT]  # --engram-root: the checkout the servers run from


@contextlib.contextmanager
def server(data_dir: Path, env: dict[str, str]) -> Iterator[tuple[str, list[int]]]:
    port = free_port()
    process = start_engram(
        data_dir, port, free_port(), env=env, stdout=sys.stderr, root=ENGRAM_ROOT[0]
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_ready(base, timeout=300, process=process)
        yield base, server_pids(process.pid)
    finally:
        stop_engram(process)


def lme_env() -> dict[str, str]:
    return {
        "ENGRAM_API_KEYS": json.dumps({LME_USER_KEY: "lme-memory"}),
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "ENGRAM_WORKERS": "0",
        "SYNC_INTERVAL_S": "0",
    }


def run_locomo(
    data_dir: Path, questions: list[locomo.Question], params: dict[str, str], env: dict[str, str]
) -> dict[str, Any]:
    key = (data_dir / "api_key").read_text().strip()
    with (
        server(data_dir, {"ENGRAM_WORKERS": "0", "SYNC_INTERVAL_S": "0", **env}) as (base, pids),
        httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c,
    ):
        locomo.run_config(c, "warm-up", params, questions[:20])
        before = cpu_seconds(pids)
        rows = locomo.run_config(c, "ablation", params, questions)
        cpu_ms = (cpu_seconds(pids) - before) * 1000 / len(questions)
    summary = locomo.summarise(rows)
    return {"r@1": summary["r@1"], "r@10": summary["r@10"], "cpu_ms": round(cpu_ms, 1)}


def run_lme(
    data_dir: Path,
    questions: list[longmemeval.Question],
    params: dict[str, str],
    env: dict[str, str],
) -> dict[str, Any]:
    with (
        server(data_dir, {**lme_env(), **env}) as (base, pids),
        httpx.Client(base_url=base, timeout=60) as c,
    ):
        for question in questions[:10]:
            longmemeval.ask(c, "memory", question, params)
        before = cpu_seconds(pids)
        rows = [longmemeval.ask(c, "memory", q, params) for q in questions]
        cpu_ms = (cpu_seconds(pids) - before) * 1000 / len(questions)
    summary = longmemeval.summarise(rows)
    ku = [r["latest_first"] for r in rows if r.get("latest_first") is not None]
    return {
        "r@1": summary["r@1"],
        "r@10": summary["r@10"],
        "latest_first": round(statistics.fmean(ku), 3) if ku else None,
        "abstained": summary["abstention_empty"],
        "cpu_ms": round(cpu_ms, 1),
    }


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| off | LoCoMo R@1 | LoCoMo R@10 | LoCoMo CPU ms | LME R@1 | LME R@10 | LME latest first "
        "| LME abstained | LME CPU ms |",
        "|" + "---|" * 9,
    ]
    for name, r in results.items():
        lo, lm = r["locomo"], r["lme"]
        cells = [
            f"{lo['r@1']:.3f}",
            f"{lo['r@10']:.3f}",
            f"{lo['cpu_ms']:.1f}",
            f"{lm['r@1']:.3f}",
            f"{lm['r@10']:.3f}",
            f"{lm['latest_first']}",
            f"{lm['abstained']}",
            f"{lm['cpu_ms']:.1f}",
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, required=True, help="a LoCoMo store's data dir")
    parser.add_argument("--lme", type=Path, required=True, help="a longmemeval --keep-data dir")
    parser.add_argument("--locomo-data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--lme-data", type=Path, default=longmemeval.DEFAULT_DATA)
    parser.add_argument("--lme-distractors", type=int, default=None)
    parser.add_argument("--only", default="", help="comma-separated ablation names")
    parser.add_argument("--engram-root", type=Path, default=ROOT, help="another checkout (A/B)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    ENGRAM_ROOT[0] = args.engram_root
    samples, _ = locomo.load_samples(args.locomo_data)
    locomo_questions = locomo.limit_questions(samples, None)
    lme_questions = longmemeval.load_questions(args.lme_data, args.lme_distractors, 0)
    wanted = [n for n in args.only.split(",") if n] or list(ABLATIONS)
    results: dict[str, dict[str, Any]] = {}
    for name in wanted:
        params, env = {**ABLATIONS, **VARIANTS}[name]
        started = time.perf_counter()
        results[name] = {
            "params": params,
            "env": env,
            "locomo": run_locomo(args.locomo, locomo_questions, params, env),
            "lme": run_lme(args.lme, lme_questions, params, env),
        }
        log(f"{name}: {results[name]} ({time.perf_counter() - started:.0f} s)")
        args.out.write_text(json.dumps({"load_average": load_average(), "results": results}))
    sys.stdout.write(table(results) + "\n")


if __name__ == "__main__":
    main()
