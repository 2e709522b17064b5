"""LongMemEval retrieval benchmark: user–assistant chat histories, per turn and through /remember.

Each question has its own history (its evidence sessions, plus its haystack's distractor
sessions: all of them, or a seeded sample of `--distractors N`), stored in an agent scope of its
own (`X-Agent-Id: <question_id>`) twice:
- `memory`: one memory per turn through POST /memory/batch, as a chat front-end that stores turns
  would send them (the role, the session and the message id in `source`); a turn longer than a
  memory's 2,000 characters is stored in chunks, as /remember keeps it;
- `remember`: one POST /remember call per session (≤ 50 messages a call), every turn with its
  role, time and message id.
Then each question is asked via GET /recall (depth 20) and the ranked results are scored against
the turns marked `has_answer` (a result stands for a turn when it is that turn, a chunk of it, or
a fact drawn from it): recall@1/5/10/20, hit@1, hit@10 and MRR, overall and per question type,
beside BM25 on the same turns (`channels=bm25`) in the same run. Abstention questions (`_abs`:
the history does not hold the answer) are scored apart, as "nothing returned" at the default
relevance floor; knowledge updates (evidence in more than one session) also as "latest first":
the first evidence turn in the ranking is the latest one, the current value.

Data: LongMemEval (Wu et al., ICLR 2025), MIT licence, read from ../shared/data/longmemeval/
beside the checkout by default (`--data` takes any file in its format); never copied into the
repository.

Usage: .venv/bin/python bench/longmemeval.py [--data PATH] [--distractors N] [--seed S]
       [--limit-questions N] [--paths memory,remember] [--keep-data DIR] [--reuse]
       [--configs engram,bm25] [--engram-root CHECKOUT] [--out PATH]
(--keep-data keeps the store in DIR; --reuse asks again on a store DIR already holds;
--engram-root runs Engram from another checkout, for an A/B of two revisions on one store)
"""

import argparse
import contextlib
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from bench import locomo
from bench._engram import free_port, load_average, start_engram, stop_engram, wait_ready

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval-s-dev.json"
DEFAULT_OUT = ROOT / "bench" / "results" / "longmemeval.json"
PATHS = ("memory", "remember")
# bm25: the keyword channel alone, unranked and ungated (relevance_floor 0): plain BM25.
CONFIGS: dict[str, dict[str, str]] = {
    "engram": {},
    "bm25": {"channels": "bm25", "rerank": "false", "relevance_floor": "0"},
}
KS = (1, 5, 10, 20)
DEPTH = 20
MAX_CHARS = 2000  # a memory's content limit (app/memories/fields.py)
MAX_MESSAGES = 50  # REMEMBER_MAX_MESSAGES's default
BATCH_SIZE = 200
JOB_TIMEOUT_S = 900
ADMIN_KEY = "bench-lme-admin-0123456789abcdef"


@dataclass(frozen=True)
class Turn:
    turn_id: str  # <session id>#<index in the session>
    session_id: str
    role: str
    content: str
    timestamp: str  # ISO 8601; the session's time plus a second per turn, to keep their order


@dataclass(frozen=True)
class Question:
    question_id: str
    question_type: str
    text: str
    evidence: tuple[str, ...]
    sessions: tuple[tuple[Turn, ...], ...]

    @property
    def abstention(self) -> bool:
        return self.question_id.endswith("_abs")

    @property
    def scope(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.@-]", "-", self.question_id)[:64]


# --- Reading the data (pure) -------------------------------------------------------------------


def parse_date(text: str) -> datetime:
    """'2023/05/20 (Sat) 02:21' → a datetime (UTC)."""
    day, _, clock = text.partition(" (")
    return datetime.strptime(f"{day} {clock.split(') ')[-1]}+0000", "%Y/%m/%d %H:%M%z")


def session_turns(session_id: str, date: str, turns: list[dict[str, Any]]) -> tuple[Turn, ...]:
    start = parse_date(date)
    return tuple(
        Turn(
            turn_id=f"{session_id}#{index}",
            session_id=session_id,
            role=turn["role"],
            content=turn["content"],
            timestamp=(start + timedelta(seconds=index)).isoformat().replace("+00:00", "Z"),
        )
        for index, turn in enumerate(turns)
        if turn["content"].strip()
    )


def chosen_sessions(item: dict[str, Any], distractors: int | None, seed: int) -> list[int]:
    """Indexes of the evidence sessions plus the distractors kept (all when None), in the
    history's own (time) order."""
    evidence = set(item["answer_session_ids"])
    ids = item["haystack_session_ids"]
    others = [i for i, sid in enumerate(ids) if sid not in evidence]
    if distractors is not None and distractors < len(others):
        others = random.Random(f"{seed}:{item['question_id']}").sample(others, distractors)
    keep = set(others) | {i for i, sid in enumerate(ids) if sid in evidence}
    return sorted(keep, key=lambda i: (parse_date(item["haystack_dates"][i]), i))


def load_questions(path: Path, distractors: int | None, seed: int) -> list[Question]:
    questions = []
    for item in json.loads(path.read_text()):
        picked = chosen_sessions(item, distractors, seed)
        sessions, evidence = [], []
        for i in picked:
            sid, raw = item["haystack_session_ids"][i], item["haystack_sessions"][i]
            sessions.append(session_turns(sid, item["haystack_dates"][i], raw))
            evidence += [f"{sid}#{n}" for n, t in enumerate(raw) if t.get("has_answer")]
        questions.append(
            Question(
                question_id=item["question_id"],
                question_type=item["question_type"],
                text=item["question"],
                evidence=tuple(evidence),
                sessions=tuple(sessions),
            )
        )
    return questions


def split_text(text: str, limit: int = MAX_CHARS) -> list[str]:
    """Chunks of at most `limit` characters, cut at a paragraph, line or sentence end where one
    is near (as /remember keeps a long message)."""
    chunks = []
    while len(text) > limit:
        window = text[:limit]
        cut = max(window.rfind("\n\n"), window.rfind("\n"), window.rfind(". "))
        cut = cut + 1 if cut > limit // 2 else limit
        chunks.append(text[:cut].strip())
        text = text[cut:]
    chunks.append(text.strip())
    return [c for c in chunks if c]


def memory_bodies(turn: Turn) -> list[dict[str, Any]]:
    """The POST /memory/batch items of one turn (one per chunk)."""
    return [
        {
            "content": chunk,
            "timestamp": turn.timestamp,
            "role": turn.role,
            "metadata": {"turn": turn.turn_id},
            "source": {"session_id": turn.session_id, "message_id": turn.turn_id},
        }
        for chunk in split_text(turn.content)
    ]


def remember_calls(session: Sequence[Turn]) -> list[dict[str, Any]]:
    messages = [
        {
            "role": t.role,
            "content": t.content,
            "timestamp": t.timestamp,
            "message_id": t.turn_id,
        }
        for t in session
    ]
    return [
        {"session_id": session[0].session_id, "messages": messages[i : i + MAX_MESSAGES]}
        for i in range(0, len(messages), MAX_MESSAGES)
    ]


# --- Scoring (pure) ----------------------------------------------------------------------------


def provenance(result: dict[str, Any]) -> set[str]:
    """The turns a result stands for: its own message, or every message a fact came from."""
    memory = result.get("memory") or {}
    source = memory.get("source") or {}
    found = [*(source.get("message_ids") or []), source.get("message_id")]
    found.append((memory.get("metadata") or {}).get("turn"))
    return {t for t in found if t}


def scores(evidence: Sequence[str], ranked: Sequence[set[str]]) -> dict[str, float]:
    wanted = set(evidence)
    found: dict[str, float] = {}
    for k in KS:
        covered = set().union(*ranked[:k]) if ranked[:k] else set()
        found[f"r@{k}"] = len(wanted & covered) / len(wanted)
    found["hit@1"] = 1.0 if ranked[:1] and ranked[0] & wanted else 0.0
    found["hit@10"] = 1.0 if any(ids & wanted for ids in ranked[:10]) else 0.0
    first = next((i for i, ids in enumerate(ranked[:DEPTH], 1) if ids & wanted), None)
    found["mrr"] = 1 / first if first else 0.0
    return found


def latest_first(evidence: Sequence[str], ranked: Sequence[set[str]]) -> float | None:
    """For a changed fact (evidence in more than one session): 1.0 if the first evidence turn
    in the ranking is the latest one (the current value), 0.0 if an older one comes first or
    none is found; None when the evidence is in one session."""
    if len({turn.split("#")[0] for turn in evidence}) < 2:
        return None
    first = next((ids for ids in ranked[:DEPTH] if ids & set(evidence)), set())
    return 1.0 if evidence[-1] in first else 0.0


METRICS = ("r@1", "r@5", "r@10", "r@20", "hit@1", "hit@10", "mrr")


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if not r["abstention"]]
    summary: dict[str, Any] = {"n": len(answerable)}
    for metric in METRICS:
        values = [r[metric] for r in answerable]
        summary[metric] = round(statistics.fmean(values), 4) if values else None
    abstaining = [r for r in rows if r["abstention"]]
    summary["abstention_n"] = len(abstaining)
    summary["abstention_empty"] = (
        round(statistics.fmean(not r["ranked"] for r in abstaining), 4) if abstaining else None
    )
    updates = [r["latest_first"] for r in answerable if r.get("latest_first") is not None]
    summary["updates_n"] = len(updates)
    summary["latest_first"] = round(statistics.fmean(updates), 4) if updates else None
    summary["p50_ms"] = round(statistics.median(r["ms"] for r in rows), 1) if rows else None
    return summary


def by_type(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    types = sorted({r["question_type"] for r in rows})
    return {t: summarise([r for r in rows if r["question_type"] == t]) for t in types}


def table(summaries: dict[str, dict[str, Any]]) -> str:
    header = (
        "| run | n | R@1 | R@5 | R@10 | R@20 | hit@1 | hit@10 | MRR | abstained | latest first "
        "| p50 ms |"
    )
    lines = [header, "|" + "---|" * 12]
    for name, s in summaries.items():
        cells = [f"{s[m]:.3f}" if s[m] is not None else "–" for m in METRICS]
        abstained = (
            f"{s['abstention_empty']:.2f} of {s['abstention_n']}" if s["abstention_n"] else "–"
        )
        latest = f"{s['latest_first']:.2f} of {s['updates_n']}" if s["updates_n"] else "–"
        row = [name, str(s["n"]), *cells, abstained, latest, str(s["p50_ms"])]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


# --- Talking to Engram -------------------------------------------------------------------------


def user_key(path: str) -> str:
    return f"bench-lme-{path}-0123456789abcdef"


def headers(path: str, question: Question) -> dict[str, str]:
    return {"Authorization": f"Bearer {user_key(path)}", "X-Agent-Id": question.scope}


def log(message: str) -> None:
    sys.stderr.write(f"[longmemeval] {message}\n")
    sys.stderr.flush()


def checked(response: httpx.Response, what: str) -> Any:
    if not response.is_success:
        raise RuntimeError(f"{what}: HTTP {response.status_code}: {response.text[:500]}")
    return response.json()


def store_turns(client: httpx.Client, question: Question) -> None:
    bodies = [b for session in question.sessions for t in session for b in memory_bodies(t)]
    for start in range(0, len(bodies), BATCH_SIZE):
        batch = {"memories": bodies[start : start + BATCH_SIZE]}
        response = client.post("/memory/batch", json=batch, headers=headers("memory", question))
        checked(response, "POST /memory/batch")


def remember_sessions(client: httpx.Client, question: Question) -> list[str]:
    jobs = []
    for session in question.sessions:
        for body in remember_calls(session):
            response = client.post("/remember", json=body, headers=headers("remember", question))
            jobs.append(checked(response, "POST /remember")["job_id"])
    return jobs


def wait_jobs(client: httpx.Client, question: Question, jobs: list[str]) -> None:
    deadline = time.monotonic() + JOB_TIMEOUT_S
    for job_id in jobs:
        while True:
            url = f"/remember/jobs/{job_id}"
            job = checked(client.get(url, headers=headers("remember", question)), "job")
            if job["state"] == "done":
                break
            if job["state"] in ("dead", "aborted") or time.monotonic() > deadline:
                raise RuntimeError(f"/remember job {job_id}: {job}")
            time.sleep(0.2)


def wait_embedded(client: httpx.Client, timeout_s: float = 7200) -> None:
    """Until no embed or window job is outstanding (the admin's view of the queue)."""
    deadline, last = time.monotonic() + timeout_s, 0.0
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    while True:
        status = checked(client.get("/enrichment/status", headers=admin), "status")
        jobs = [status.get("jobs", {}).get(kind, {}) for kind in locomo.SEARCHABLE_AFTER]
        outstanding = sum(j.get(k, 0) for j in jobs for k in ("pending", "in_flight", "scheduled"))
        if outstanding == 0:
            return
        if time.monotonic() - last > 15:
            log(f"embedding: {outstanding} jobs outstanding")
            last = time.monotonic()
        if time.monotonic() > deadline:
            raise TimeoutError(f"embed jobs not drained: {outstanding}")
        time.sleep(1)


def ingest(client: httpx.Client, questions: list[Question], paths: Sequence[str]) -> float:
    started = time.perf_counter()
    for number, question in enumerate(questions, 1):
        if "memory" in paths:
            store_turns(client, question)
        if "remember" in paths:
            wait_jobs(client, question, remember_sessions(client, question))
        if number % 10 == 0:
            log(f"ingested {number}/{len(questions)} histories")
    wait_embedded(client)
    return round(time.perf_counter() - started, 1)


def ask(
    client: httpx.Client, path: str, question: Question, params: dict[str, str]
) -> dict[str, Any]:
    query = {"query": question.text, "limit": DEPTH, **params}
    started = time.perf_counter()
    response = client.get("/recall", params=query, headers=headers(path, question))
    ms = (time.perf_counter() - started) * 1000
    results = checked(response, "GET /recall").get("results") or []
    ranked = [provenance(r) for r in results]
    row = {
        "question_id": question.question_id,
        "question_type": question.question_type,
        "abstention": question.abstention,
        "ranked": [sorted(ids) for ids in ranked],
        "roles": [(r.get("memory") or {}).get("role") for r in results],
        "ms": round(ms, 2),
    }
    if not question.abstention:
        row.update(scores(question.evidence, ranked))
        if question.question_type == "knowledge-update":
            row["latest_first"] = latest_first(question.evidence, ranked)
    return row


def evaluate(
    client: httpx.Client, questions: list[Question], paths: Sequence[str], configs: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    runs = {}
    for path in paths:
        for name in configs:
            if name != "engram" and path != "memory":
                continue  # the baselines run on the turns themselves
            runs[f"{path}/{name}"] = [ask(client, path, q, CONFIGS[name]) for q in questions]
            log(f"asked {path}/{name}")
    return runs


@contextlib.contextmanager
def engram(keep: Path | None, root: Path = ROOT) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="engram-lme-") as tmp:
        data_dir, port = keep or Path(tmp), free_port()
        data_dir.mkdir(parents=True, exist_ok=True)
        env = {
            "ENGRAM_API_KEYS": json.dumps({user_key(p): f"lme-{p}" for p in PATHS}),
            "ENGRAM_ADMIN_KEY": ADMIN_KEY,
            "ENGRAM_GENERATE_LOCAL_KEY": "false",
            "ENGRAM_WORKERS": "2",
            "REMEMBER_RATE_PER_MINUTE": "100000",
            "LLM_BASE_URL": "",
        }
        process = start_engram(data_dir, port, free_port(), env=env, stdout=sys.stderr, root=root)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(base, timeout=300, process=process)
            yield base
        finally:
            stop_engram(process)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--distractors", type=int, default=None, help="default: all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit-questions", type=int, default=None)
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--keep-data", type=Path, default=None)
    parser.add_argument("--reuse", action="store_true", help="the store in --keep-data is full")
    parser.add_argument(
        "--engram-root", type=Path, default=ROOT, help="run Engram from this checkout (A/B)"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    questions = load_questions(args.data, args.distractors, args.seed)[: args.limit_questions]
    paths = [p for p in args.paths.split(",") if p]
    turns = sum(len(s) for q in questions for s in q.sessions)
    log(f"{len(questions)} questions, {turns} turns a path")
    with (
        engram(args.keep_data, args.engram_root) as base,
        httpx.Client(base_url=base, timeout=600) as client,
    ):
        ingest_s = None if args.reuse else ingest(client, questions, paths)
        wait_embedded(client)  # a reused store may still have embeddings queued
        runs = evaluate(client, questions, paths, [c for c in args.configs.split(",") if c])
    summaries = {name: summarise(rows) for name, rows in runs.items()}
    result = {
        "data": args.data.name,
        "distractors": args.distractors,
        "seed": args.seed,
        "questions": len(questions),
        "turns_per_path": turns,
        "ingest_s": ingest_s,
        "load_average": load_average(),
        "commit": locomo.git_commit(),
        "overall": summaries,
        "by_type": {name: by_type(rows) for name, rows in runs.items()},
        "rows": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    sys.stdout.write(table(summaries) + "\n")
    for name, rows in runs.items():
        sys.stdout.write(f"\n{name} by type\n{table(by_type(rows))}\n")


if __name__ == "__main__":
    main()
