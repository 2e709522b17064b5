"""LoCoMo through /remember beside POST /memory: does keeping the conversation lose anything?

Starts Engram on the embedded default in a temporary data dir, with one user per conversation and
path, and stores every conversation twice:
- `memory`: one memory per turn through POST /memory/batch (`Speaker: text`, the session and the
  message id in `source`), as bench/locomo.py does;
- `remember`: one POST /remember call per session (split where a session has more turns than a
  call takes), speaker A as the user and B as the assistant, both with their names, the dia_id as
  the message id, `agent_id` set so that facts about B are kept too.
Then it asks every question of categories 1–4 with evidence of both users and scores the ranked
results by provenance: a result hits an evidence turn when it is that turn, or a fact whose
`source.message_ids` include it. Reports recall@1/5/10/20, hit@10 and MRR overall and per
category, side by side, and the /remember call and job latencies.

Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0, read from ../shared/data/locomo/ beside
the checkout by default; never copied into the repository.

Usage: .venv/bin/python bench/locomo_remember.py [--data PATH] [--samples conv-26,...]
       [--limit-questions N] [--out PATH] [--keep-data DIR]
"""

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from bench import locomo
from bench._engram import free_port, percentiles, start_engram, stop_engram, wait_ready

ROOT = Path(__file__).resolve().parents[1]

DEFAULT_OUT = ROOT / "bench" / "results" / "locomo-remember.json"
PATHS = ("memory", "remember")
AGENT = "locomo-assistant"
MAX_MESSAGES = 50  # REMEMBER_MAX_MESSAGES's default
JOB_TIMEOUT_S = 300


def user_of(sample_id: str, path: str) -> str:
    return f"{sample_id}-{path}"


def key_of(sample_id: str, path: str) -> str:
    return f"bench-{user_of(sample_id, path)}-0123456789abcdef"


def api_keys(sample_ids: Sequence[str]) -> dict[str, str]:
    """ENGRAM_API_KEYS: one user per conversation and path."""
    return {key_of(s, p): user_of(s, p) for s in sample_ids for p in PATHS}


def headers(sample_id: str, path: str) -> dict[str, str]:
    found = {"Authorization": f"Bearer {key_of(sample_id, path)}"}
    return found | ({"X-Agent-Id": AGENT} if path == "remember" else {})


# --- Building the calls (pure) -----------------------------------------------------------------


def session_calls(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """The /remember bodies of one conversation: a call per session (at most MAX_MESSAGES)."""
    conversation = sample["conversation"]
    user, calls = conversation["speaker_a"], []
    for number in locomo.session_numbers(conversation):
        timestamp = locomo.parse_session_date(conversation[f"session_{number}_date_time"])
        messages = [_message(turn, user, timestamp) for turn in conversation[f"session_{number}"]]
        for start in range(0, len(messages), MAX_MESSAGES):
            calls.append(
                {
                    "session_id": f"{sample['sample_id']}/session_{number}",
                    "agent_id": AGENT,
                    "messages": messages[start : start + MAX_MESSAGES],
                }
            )
    return calls


def _message(turn: dict[str, Any], user: str, timestamp: str) -> dict[str, Any]:
    caption = (turn.get("blip_caption") or "").strip()
    text = f"{turn['text']} [shares {caption}]" if caption else turn["text"]
    return {
        "role": "user" if turn["speaker"] == user else "assistant",
        "name": turn["speaker"],
        "content": text,
        "timestamp": timestamp,
        "message_id": locomo.normalise_dia_id(turn["dia_id"]) or turn["dia_id"],
    }


def provenance(result: dict[str, Any]) -> set[str]:
    """The dia_ids a result stands for: its own message, or every message a fact came from."""
    memory = result.get("memory") or {}
    source = memory.get("source") or {}
    found = source.get("message_ids") or [source.get("message_id")]
    found = found + [(memory.get("metadata") or {}).get("dia_id")]
    return {d for d in found if d}


def scores(evidence: Sequence[str], ranked: Sequence[set[str]]) -> dict[str, float]:
    """recall@k (share of the evidence among the top k's provenance), hit@10, MRR (depth 20)."""
    wanted = set(evidence)
    found = {}
    for k in locomo.KS:
        covered = set().union(*ranked[:k]) if ranked[:k] else set()
        found[f"r@{k}"] = len(wanted & covered) / len(wanted)
    found[f"hit@{locomo.HIT_K}"] = found[f"r@{locomo.HIT_K}"] > 0 and 1.0 or 0.0
    first = next((i for i, ids in enumerate(ranked[: locomo.DEPTH], 1) if ids & wanted), None)
    found["mrr"] = 1 / first if first else 0.0
    return found


# --- Talking to Engram -------------------------------------------------------------------------


def store_turns(client: httpx.Client, sample: locomo.Sample) -> None:
    for batch in locomo.chunks(sample.turns, locomo.BATCH_SIZE):
        body = {"memories": [locomo.memory_body(sample.sample_id, t) for t in batch]}
        response = client.post(
            "/memory/batch", json=body, headers=headers(sample.sample_id, "memory")
        )
        locomo.checked(response, "POST /memory/batch")


def remember_all(client: httpx.Client, raw: dict[str, Any]) -> dict[str, list[float]]:
    """Posts every session; waits for every job. Returns the 202 and job latencies (ms)."""
    sample_id, posted, accepted_ms = raw["sample_id"], [], []
    for body in session_calls(raw):
        started = time.perf_counter()
        response = client.post("/remember", json=body, headers=headers(sample_id, "remember"))
        accepted_ms.append((time.perf_counter() - started) * 1000)
        posted.append(locomo.checked(response, "POST /remember")["job_id"])
    job_ms = [wait_job(client, sample_id, job_id) for job_id in posted]
    return {"accepted_ms": accepted_ms, "job_ms": job_ms}


def wait_job(client: httpx.Client, sample_id: str, job_id: str) -> float:
    """Waits for a /remember job; returns its run time (ms) as the queue recorded it."""
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while time.monotonic() < deadline:
        response = client.get(f"/remember/jobs/{job_id}", headers=headers(sample_id, "remember"))
        job = locomo.checked(response, "GET /remember/jobs")
        if job["state"] == "done":
            return float((job.get("result") or {}).get("elapsed_ms") or 0.0)
        if job["state"] in ("dead", "aborted"):
            raise RuntimeError(f"/remember job {job_id}: {job}")
        time.sleep(0.2)
    raise TimeoutError(f"/remember job {job_id} not done after {JOB_TIMEOUT_S} s")


def ask(client: httpx.Client, question: locomo.Question, path: str) -> dict[str, Any]:
    params = {"query": question.text, "limit": locomo.DEPTH}
    started = time.perf_counter()
    response = client.get("/recall", params=params, headers=headers(question.sample_id, path))
    elapsed = (time.perf_counter() - started) * 1000
    body = locomo.checked(response, "GET /recall")
    ranked = [provenance(r) for r in body.get("results") or []]
    return {
        "sample_id": question.sample_id,
        "qa_index": question.index,
        "category": question.category,
        "evidence": list(question.evidence),
        "ranked": [sorted(ids) for ids in ranked],
        "layers": [(r.get("memory") or {}).get("layer") for r in body.get("results") or []],
        "degraded": body.get("degraded") or [],
        "ms": round(elapsed, 2),
        **scores(question.evidence, ranked),
    }


@contextlib.contextmanager
def engram(sample_ids: Sequence[str], keep: Path | None) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="engram-locomo-remember-") as tmp:
        data_dir, port = keep or Path(tmp), free_port()
        env = {
            "ENGRAM_API_KEYS": json.dumps(api_keys(sample_ids)),
            "ENGRAM_WORKERS": "2",
            "REMEMBER_RATE_PER_MINUTE": "100000",
        }
        process = start_engram(data_dir, port, free_port(), env=env, stdout=sys.stderr)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(base, timeout=120, process=process)
            yield base
        finally:
            stop_engram(process)


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "overall": locomo.summarise(rows),
        "by_category": locomo.summarise_by_category(rows),
    }


def report(results: dict[str, dict[str, Any]], latency: dict[str, Any]) -> str:
    text = "## LoCoMo evidence recall: POST /memory (a memory per turn) and /remember\n\n"
    text += locomo.markdown_table("path", {p: r["overall"] for p, r in results.items()}) + "\n"
    for path, result in results.items():
        by_category = {**result["by_category"], "overall": result["overall"]}
        text += f"\n### {path} per category\n\n" + locomo.markdown_table("category", by_category)
        text += "\n"
    text += f"\n/remember: 202 {latency['accepted']}, job {latency['job']}\n"
    return text


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--samples", default="", help="comma-separated sample ids (default all)")
    parser.add_argument("--limit-questions", type=int, default=None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--keep-data", type=Path, default=None, help="data dir to keep")
    args = parser.parse_args(argv)
    raw = json.loads(args.data.read_text())
    wanted = [s for s in args.samples.split(",") if s]
    raw = [s for s in raw if not wanted or s["sample_id"] in wanted]
    samples, _ = locomo.load_samples(args.data, wanted or None)
    questions = locomo.limit_questions(samples, args.limit_questions)
    first = samples[0].sample_id
    with (
        engram([s.sample_id for s in samples], args.keep_data) as base,
        httpx.Client(base_url=base, timeout=120, headers=headers(first, "memory")) as client,
    ):
        latencies: dict[str, list[float]] = {"accepted_ms": [], "job_ms": []}
        for sample, conversation in zip(samples, raw, strict=True):
            store_turns(client, sample)
            for name, values in remember_all(client, conversation).items():
                latencies[name] += values
            locomo.log(f"{sample.sample_id}: stored both ways")
        locomo.wait_searchable(client, 0, 3600)
        rows = {path: [ask(client, q, path) for q in questions] for path in PATHS}
    results = {path: summary(found) for path, found in rows.items()}
    latency = {
        "accepted": percentiles(latencies["accepted_ms"]),
        "job": percentiles(latencies["job_ms"]) if any(latencies["job_ms"]) else None,
    }
    output = {
        "benchmark": "locomo-remember",
        "data": str(args.data),
        "git_commit": locomo.git_commit(),
        "asked": len(questions),
        "latency": latency,
        "paths": {p: {**results[p], "questions": rows[p]} for p in PATHS},
        "mean_of_r10": {p: statistics.fmean(r["r@10"] for r in rows[p]) for p in PATHS},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(output, indent=2))
    sys.stdout.write(report(results, latency))


if __name__ == "__main__":
    main()
