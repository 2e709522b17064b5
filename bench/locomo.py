"""LoCoMo retrieval benchmark: one memory per dialogue turn, each question asked via GET /recall.

Starts Engram on the embedded default in a temporary data dir (or uses `--base-url`), ingests
every turn of every conversation through POST /memory/batch (one agent scope per conversation,
`X-Agent-Id: <sample_id>`), waits until the embed jobs have drained, then asks every question of
categories 1–4 with evidence, once per configuration, and scores the ranked turns against the
question's evidence: recall@1/5/10/20, hit@10, MRR (depth 20) and the latency of /recall.

Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0. It is read from ../shared/data/locomo/
beside the checkout by default and must not be copied into the repository; `--data` takes any
file in `locomo10.json` format.

Usage: .venv/bin/python bench/locomo.py [--configs engram,bm25,dense] [--samples conv-26,...]
       [--limit-questions N] [--data PATH] [--base-url URL --api-key KEY] [--ingest-only]
       [--depth N]  (results asked per question, default 20; recall@k for k > N is recall@N)
       [--protocol default|plain|both]  (plain: turns without source or labels, as an
       AutoMem-style client sends them, in scopes `<sample_id>-plain`)
"""

import argparse
import contextlib
import dataclasses
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from bench._engram import free_port, percentiles, start_engram, stop_engram, wait_ready

ROOT = Path(__file__).resolve().parents[1]

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
DEFAULT_OUT = ROOT / "bench" / "results" / "locomo.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
CONFIGS: dict[str, dict[str, str]] = {
    "engram": {},
    "engram-nofloor": {"relevance_floor": "0"},
    "bm25": {"channels": "bm25", "rerank": "false"},
    "dense": {"channels": "dense", "rerank": "false"},
    "rrf": {"channels": "dense,bm25", "rerank": "false"},
}
KS = (1, 5, 10, 20)
PROTOCOLS = ("default", "plain", "both")
DEPTH = 20
HIT_K = 10
BATCH_SIZE = 500
TAG = "locomo"
WARMUP_AGENT = "locomo-warmup"
WARMUP_CALLS = 5
SEARCHABLE_AFTER = ("embed", "windows")  # job kinds
METRICS = ("r@1", "r@5", "r@10", "r@20", "hit@10", "mrr")
LATENCIES = ("p50_ms", "p95_ms")

DIA_ID = re.compile(r"D:?(\d+):(\d+)")
EVIDENCE_SEPARATORS = re.compile(r"[;,\s]+")
SESSION_KEY = re.compile(r"session_(\d+)")
SESSION_DATE = re.compile(
    r"(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})", re.I
)
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


@dataclass(frozen=True)
class Turn:
    """One dialogue turn, as it becomes one memory."""

    dia_id: str
    session: int
    content: str
    timestamp: str


@dataclass(frozen=True)
class Question:
    """One scored question: its conversation, category and evidence turns."""

    sample_id: str
    index: int
    category: int
    text: str
    evidence: tuple[str, ...]


@dataclass
class Sample:
    """One conversation: its turns in order and its usable questions."""

    sample_id: str
    turns: list[Turn]
    questions: list[Question]


# --- Parsing the data (pure) -------------------------------------------------------------------


def normalise_dia_id(token: str) -> str | None:
    """`D8:6` → `D8:6`, `D:11:26` → `D11:26`, `D08:6` → `D8:6`; anything else → None."""
    match = DIA_ID.fullmatch(token.strip())
    return f"D{int(match[1])}:{int(match[2])}" if match else None


def split_evidence(raw: Sequence[str]) -> list[str]:
    """The non-empty tokens of evidence entries, split on ';', ',' and whitespace."""
    return [token for entry in raw for token in EVIDENCE_SEPARATORS.split(entry) if token]


def parse_evidence(raw: Sequence[str]) -> list[str]:
    """Normalised, de-duplicated dia_ids of an evidence list (malformed tokens dropped)."""
    ids = (normalise_dia_id(token) for token in split_evidence(raw))
    return list(dict.fromkeys(i for i in ids if i))


def month_number(name: str) -> int | None:
    """1–12 for an English month name or its abbreviation of three letters or more."""
    lowered = name.lower()
    found = (
        n for n, month in enumerate(MONTHS, 1) if len(lowered) >= 3 and month.startswith(lowered)
    )
    return next(found, None)


def parse_session_date(text: str) -> str:
    """`"1:56 pm on 8 May, 2023"` → `"2023-05-08T13:56:00+00:00"` (taken as UTC)."""
    match = SESSION_DATE.fullmatch(text.strip())
    month = month_number(match[5]) if match else None
    if match is None or month is None:
        raise ValueError(f"unrecognised session date {text!r}")
    hour = int(match[1]) % 12 + (12 if match[3].lower() == "p" else 0)
    moment = datetime(int(match[6]), month, int(match[4]), hour, int(match[2]), tzinfo=UTC)
    return moment.isoformat()


def turn_content(turn: dict[str, Any]) -> str:
    """`Speaker: text`, plus ` [shares <caption>]` when the turn shares an image."""
    content = f"{turn['speaker']}: {turn['text']}"
    caption = (turn.get("blip_caption") or "").strip()
    return f"{content} [shares {caption}]" if caption else content


def session_numbers(conversation: dict[str, Any]) -> list[int]:
    """The session numbers of a conversation, in order."""
    keys = (SESSION_KEY.fullmatch(key) for key in conversation)
    return sorted(int(m[1]) for m in keys if m and isinstance(conversation[m[0]], list))


def conversation_turns(conversation: dict[str, Any]) -> list[Turn]:
    """Every turn of every session, in order, with its session's date."""
    turns = []
    for number in session_numbers(conversation):
        timestamp = parse_session_date(conversation[f"session_{number}_date_time"])
        for turn in conversation[f"session_{number}"]:
            dia_id = normalise_dia_id(turn["dia_id"]) or turn["dia_id"]
            turns.append(Turn(dia_id, number, turn_content(turn), timestamp))
    return turns


def scored_questions(sample_id: str, qa: list[dict[str, Any]]) -> list[Question]:
    """The questions of categories 1–4 that have at least one well-formed evidence id."""
    questions = []
    for index, item in enumerate(qa):
        evidence = parse_evidence(item.get("evidence") or [])
        if item.get("category") in CATEGORIES and evidence:
            questions.append(
                Question(sample_id, index, item["category"], item["question"], tuple(evidence))
            )
    return questions


def dataset_stats(raw: list[dict[str, Any]], samples: list[Sample]) -> dict[str, Any]:
    """Counts of questions seen, in categories 1–4, usable, and evidence anomalies."""
    qa = [item for sample in raw for item in sample["qa"]]
    in_scope = [item for item in qa if item.get("category") in CATEGORIES]
    tokens = [t for item in in_scope for t in split_evidence(item.get("evidence") or [])]
    unknown = [
        f"{s.sample_id}:{e}"
        for s in samples
        for e in sorted({e for q in s.questions for e in q.evidence} - {t.dia_id for t in s.turns})
    ]
    return {
        "samples": [s.sample_id for s in samples],
        "turns": sum(len(s.turns) for s in samples),
        "questions": len(qa),
        "questions_categories_1_4": len(in_scope),
        "usable": sum(len(s.questions) for s in samples),
        "skipped_without_evidence": len(in_scope) - sum(len(s.questions) for s in samples),
        "malformed_evidence_tokens_dropped": [t for t in tokens if normalise_dia_id(t) is None],
        "evidence_ids_not_in_conversation": unknown,
    }


def load_samples(path: Path, sample_ids: Sequence[str] | None = None) -> tuple[list, dict]:
    """The selected samples of a locomo10.json-format file, and dataset statistics."""
    raw = json.loads(path.read_text())
    if sample_ids:
        missing = set(sample_ids) - {s["sample_id"] for s in raw}
        if missing:
            raise SystemExit(f"unknown sample ids: {', '.join(sorted(missing))}")
        raw = [s for s in raw if s["sample_id"] in sample_ids]
    samples = [
        Sample(
            s["sample_id"],
            conversation_turns(s["conversation"]),
            scored_questions(s["sample_id"], s["qa"]),
        )
        for s in raw
    ]
    return samples, dataset_stats(raw, samples)


def limit_questions(samples: list[Sample], limit: int | None) -> list[Question]:
    """The first `limit` usable questions over the samples in order (all if None)."""
    questions = [q for s in samples for q in s.questions]
    return questions if limit is None else questions[:limit]


def memory_body(sample_id: str, turn: Turn, protocol: str = "default") -> dict[str, Any]:
    """The POST /memory/batch item for one turn.

    default: what a chat front-end sends (the conversation session and the message id, labels);
    plain: what an AutoMem-style client sends (content, tags, timestamp and metadata only), so
    that conversation order must be inferred (app/memories/sequence.py).
    """
    body = {
        "content": turn.content,
        "timestamp": turn.timestamp,
        "metadata": {"dia_id": turn.dia_id, "session": turn.session, "sample_id": sample_id},
        "tags": [TAG],
    }
    if protocol == "plain":
        return body
    return {
        **body,
        "labels": {"dia_id": turn.dia_id, "session": turn.session},
        "source": {"session_id": f"{sample_id}/session_{turn.session}", "message_id": turn.dia_id},
    }


def in_protocol_scope(samples: list[Sample], protocol: str) -> list[Sample]:
    """The samples as a protocol stores them: plain ones in their own scopes (`<id>-plain`), so
    that both protocols can live in one Engram."""
    if protocol == "default":
        return samples
    scoped = []
    for sample in samples:
        scope = f"{sample.sample_id}-{protocol}"
        questions = [dataclasses.replace(q, sample_id=scope) for q in sample.questions]
        scoped.append(dataclasses.replace(sample, sample_id=scope, questions=questions))
    return scoped


def chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """Consecutive slices of at most `size` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


# --- Metrics (pure) ----------------------------------------------------------------------------


def recall_at(evidence: Sequence[str], ranked: Sequence[str | None], k: int) -> float:
    """The share of the evidence found in the top k."""
    wanted = set(evidence)
    return len(wanted & set(ranked[:k])) / len(wanted)


def hit_at(evidence: Sequence[str], ranked: Sequence[str | None], k: int) -> float:
    """1.0 if any evidence is in the top k, else 0.0."""
    return 1.0 if set(evidence) & set(ranked[:k]) else 0.0


def reciprocal_rank(
    evidence: Sequence[str], ranked: Sequence[str | None], depth: int = DEPTH
) -> float:
    """1/rank of the first evidence hit within `depth`, 0.0 if none."""
    wanted = set(evidence)
    return next((1 / rank for rank, d in enumerate(ranked[:depth], 1) if d in wanted), 0.0)


def score(evidence: Sequence[str], ranked: Sequence[str | None]) -> dict[str, float]:
    """Every metric of one question."""
    scores = {f"r@{k}": recall_at(evidence, ranked, k) for k in KS}
    scores[f"hit@{HIT_K}"] = hit_at(evidence, ranked, HIT_K)
    scores["mrr"] = reciprocal_rank(evidence, ranked)
    return scores


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means of the metrics, p50/p95 latency, mean results returned, degraded answers."""
    if not rows:
        return {"n": 0}
    summary: dict[str, Any] = {"n": len(rows)}
    summary.update({m: round(statistics.fmean(r[m] for r in rows), 4) for m in METRICS})
    latency = percentiles([r["ms"] for r in rows])
    summary.update({k: latency[k] for k in LATENCIES})
    summary["mean_returned"] = round(statistics.fmean(len(r["ranked"]) for r in rows), 2)
    summary["degraded"] = sum(1 for r in rows if r["degraded"])
    return summary


def summarise_by_category(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """`summarise` per category name (only categories that have questions)."""
    grouped = {
        name: [r for r in rows if r["category"] == number] for number, name in CATEGORIES.items()
    }
    return {name: summarise(group) for name, group in grouped.items() if group}


# --- Tables ------------------------------------------------------------------------------------

COLUMNS = ("R@1", "R@5", "R@10", "R@20", "hit@10", "MRR", "p50 ms", "p95 ms")


def table_row(name: str, summary: dict[str, Any]) -> str:
    """One markdown row: name, n, metrics to 3 decimals, latencies to 1."""
    cells = [f"{summary[k]:.3f}" for k in METRICS] + [f"{summary[k]:.1f}" for k in LATENCIES]
    return f"| {name} | {summary['n']} | " + " | ".join(cells) + " |"


def markdown_table(first: str, summaries: dict[str, dict[str, Any]]) -> str:
    """A markdown table with one row per named summary."""
    header = f"| {first} | n | " + " | ".join(COLUMNS) + " |"
    rule = "|" + "---|" * (len(COLUMNS) + 2)
    rows = [table_row(name, s) for name, s in summaries.items() if s.get("n")]
    return "\n".join([header, rule, *rows])


# --- Talking to Engram -------------------------------------------------------------------------


def log(message: str) -> None:
    """Progress, to stderr."""
    sys.stderr.write(f"[locomo] {message}\n")
    sys.stderr.flush()


def agent(sample_id: str) -> dict[str, str]:
    """The header that selects a conversation's agent scope."""
    return {"X-Agent-Id": sample_id}


def checked(response: httpx.Response, what: str) -> dict[str, Any]:
    """The JSON body of a 2xx response; anything else fails loudly with the body."""
    if not response.is_success:
        raise RuntimeError(f"{what}: HTTP {response.status_code}: {response.text[:500]}")
    return response.json()


def has_recall(client: httpx.Client) -> bool:
    """Whether the service's OpenAPI document lists GET /recall."""
    paths = checked(client.get("/openapi.json"), "GET /openapi.json").get("paths", {})
    return "get" in paths.get("/recall", {})


def scope_has_locomo(client: httpx.Client, sample_id: str) -> bool:
    """Whether the conversation's scope already holds LoCoMo memories (a previous run)."""
    params = {"tags": TAG, "limit": 1}
    body = checked(client.get("/memory/by-tag", params=params, headers=agent(sample_id)), "by-tag")
    return body["count"] > 0


def ingest_sample(client: httpx.Client, sample: Sample, protocol: str = "default") -> list[str]:
    """Stores every turn of a conversation in its scope, ≤500 per call; returns the ids."""
    ids: list[str] = []
    for batch in chunks(sample.turns, BATCH_SIZE):
        body = {"memories": [memory_body(sample.sample_id, turn, protocol) for turn in batch]}
        response = client.post("/memory/batch", json=body, headers=agent(sample.sample_id))
        stored = checked(response, f"POST /memory/batch ({sample.sample_id})")
        if stored["stored"] != len(batch):
            raise RuntimeError(f"{sample.sample_id}: stored {stored['stored']} of {len(batch)}")
        ids.extend(stored["memory_ids"])
    return ids


def embed_jobs(client: httpx.Client) -> dict[str, Any]:
    """The figures of GET /enrichment/status for the jobs a memory waits for before it is fully
    searchable (embed, and windows: its window vector), plus its `workers`."""
    status = checked(client.get("/enrichment/status"), "GET /enrichment/status")
    kinds = [status.get("jobs", {}).get(kind, {}) for kind in SEARCHABLE_AFTER]
    outstanding = sum(j.get(k, 0) for j in kinds for k in ("pending", "in_flight", "scheduled"))
    return {
        "outstanding": outstanding,
        "done": sum(j.get("done", 0) for j in kinds),
        "dead": sum(j.get("dead", 0) for j in kinds),
        "workers": status.get("workers", 0),
    }


def wait_searchable(client: httpx.Client, dead_before: int, timeout_s: float) -> None:
    """Polls until no embed job is outstanding and the done count is stable; fails loudly."""
    deadline, last_done, last_log = time.monotonic() + timeout_s, None, 0.0
    while True:
        jobs = embed_jobs(client)
        if jobs["dead"] > dead_before:
            raise RuntimeError(f"{jobs['dead'] - dead_before} embed jobs died; see the server log")
        if time.monotonic() - last_log >= 5:
            log(f"embedding: {jobs['done']} jobs done, {jobs['outstanding']} outstanding")
            last_log = time.monotonic()
        if jobs["outstanding"] == 0 and jobs["done"] == last_done:
            return
        last_done = jobs["done"] if jobs["outstanding"] == 0 else None
        if time.monotonic() > deadline:
            raise TimeoutError(f"embed jobs not drained after {timeout_s:.0f} s: {jobs}")
        time.sleep(1)


def embedding_statuses(client: httpx.Client, ids_by_sample: dict[str, list[str]]) -> Counter:
    """How many of the ingested memories are in each embedding_status."""
    statuses: Counter = Counter()
    for sample_id, ids in ids_by_sample.items():
        for memory_id in ids:
            response = client.get(f"/memory/{memory_id}", headers=agent(sample_id))
            statuses[checked(response, "GET /memory/{id}")["memory"]["embedding_status"]] += 1
    return statuses


def ingest(
    client: httpx.Client, samples: list[Sample], timeout_s: float, protocol: str = "default"
) -> dict[str, Any]:
    """Ingests the samples, waits until searchable, checks every memory is embedded."""
    dead_before = embed_jobs(client)["dead"]
    started = time.perf_counter()
    ids_by_sample = {}
    for sample in samples:
        ids_by_sample[sample.sample_id] = ingest_sample(client, sample, protocol)
        log(f"ingested {sample.sample_id}: {len(sample.turns)} turns")
    posted = time.perf_counter() - started
    wait_searchable(client, dead_before, timeout_s)
    searchable = time.perf_counter() - started
    statuses = embedding_statuses(client, ids_by_sample)
    memories = sum(len(ids) for ids in ids_by_sample.values())
    log(f"{memories} memories posted in {posted:.1f} s, searchable after {searchable:.1f} s")
    if statuses["done"] != memories:
        raise RuntimeError(f"not every memory is embedded: {dict(statuses)}")
    return {
        "memories": memories,
        "post_s": round(posted, 2),
        "searchable_s": round(searchable, 2),
        "embedding_status": dict(statuses),
    }


def ranked_dia_ids(body: dict[str, Any]) -> list[str | None]:
    """The dia_id of each result in rank order (None for a memory that has none)."""
    results = body.get("results") or []
    return [((r.get("memory") or {}).get("metadata") or {}).get("dia_id") for r in results]


def recall(
    client: httpx.Client, sample_id: str, query: str, params: dict[str, str], depth: int = DEPTH
) -> tuple[dict[str, Any], float]:
    """The /recall response body for a question (`depth` results), and the call's latency in ms."""
    query_params = {"query": query, "limit": depth, **params}
    started = time.perf_counter()
    response = client.get("/recall", params=query_params, headers=agent(sample_id))
    elapsed = (time.perf_counter() - started) * 1000
    return checked(response, f"GET /recall ({sample_id})"), elapsed


def question_row(question: Question, body: dict[str, Any], ms: float) -> dict[str, Any]:
    """One question's outcome: identity, evidence, ranked dia_ids, latency and metrics."""
    ranked = ranked_dia_ids(body)
    return {
        "sample_id": question.sample_id,
        "qa_index": question.index,
        "category": question.category,
        "evidence": list(question.evidence),
        "ranked": ranked,
        "degraded": body.get("degraded") or [],
        "ms": round(ms, 2),
        **score(question.evidence, ranked),
    }


def run_config(
    client: httpx.Client,
    name: str,
    params: dict[str, str],
    questions: list[Question],
    depth: int = DEPTH,
) -> list[dict[str, Any]]:
    """Asks every question with one configuration; one row per question."""
    for _ in range(WARMUP_CALLS):  # an empty scope: warms the query path, touches no memory
        recall(client, WARMUP_AGENT, "warm-up question", params, depth)
    rows = []
    for number, question in enumerate(questions, 1):
        body, ms = recall(client, question.sample_id, question.text, params, depth)
        rows.append(question_row(question, body, ms))
        if number % 100 == 0 or number == len(questions):
            log(f"{name}: {number}/{len(questions)} questions")
    return rows


@contextlib.contextmanager
def engram(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """The base URL and API key of the given Engram, or of a fresh embedded one."""
    if args.base_url:
        if not args.api_key:
            raise SystemExit("--base-url needs --api-key")
        yield args.base_url.rstrip("/"), args.api_key
        return
    with tempfile.TemporaryDirectory(prefix="engram-locomo-") as tmp:
        data_dir, port = Path(tmp), free_port()
        env = {"ENGRAM_WORKERS": str(args.workers)}
        process = start_engram(data_dir, port, free_port(), env=env, stdout=sys.stderr)
        try:
            base = f"http://127.0.0.1:{port}"
            log(f"starting Engram on {base} (data in {data_dir})")
            wait_ready(base, timeout=120, process=process)
            yield base, (data_dir / "api_key").read_text().strip()
        finally:
            stop_engram(process)


def git_commit() -> str | None:
    """The checkout's HEAD commit, if git can tell."""
    command = ["git", "rev-parse", "HEAD"]
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        return subprocess.check_output(
            command, cwd=ROOT, text=True, stderr=subprocess.DEVNULL
        ).strip()
    return None


# --- Main --------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo10.json format")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated")
    parser.add_argument("--samples", default="", help="comma-separated sample ids (default all)")
    parser.add_argument("--limit-questions", type=int, default=None, help="first N questions")
    parser.add_argument("--base-url", default=None, help="use a running Engram")
    parser.add_argument("--api-key", default=None, help="its API key (with --base-url)")
    parser.add_argument("--skip-ingest", action="store_true", help="the data is already there")
    parser.add_argument("--ingest-only", action="store_true", help="stop once searchable")
    parser.add_argument("--wait-timeout", type=float, default=1800, help="seconds (default 30 min)")
    parser.add_argument("--workers", type=int, default=2, help="ENGRAM_WORKERS when embedded")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--protocol",
        default="default",
        choices=PROTOCOLS,
        help="default: turns with source.session_id and labels; plain: content, tags, timestamp "
        "and metadata only (stored in scopes <id>-plain); both: each, reported side by side",
    )
    parser.add_argument(
        "--depth", type=int, default=DEPTH, help=f"results asked per question (default {DEPTH})"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.depth <= DEPTH:
        parser.error(f"--depth: 1 to {DEPTH}")
    args.configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in args.configs if c not in CONFIGS]
    if unknown or not args.configs:
        parser.error(f"--configs: choose from {', '.join(CONFIGS)}")
    args.samples = [s.strip() for s in args.samples.split(",") if s.strip()]
    if args.skip_ingest and not args.base_url:
        parser.error("--skip-ingest needs --base-url (a fresh embedded Engram is empty)")
    return args


def preflight(client: httpx.Client, args: argparse.Namespace, samples: list[Sample]) -> None:
    """Fails before ingesting if /recall is missing or a scope already holds LoCoMo data."""
    if not args.ingest_only and not has_recall(client):
        raise SystemExit("this Engram has no GET /recall (see /openapi.json); try --ingest-only")
    if not args.skip_ingest:
        used = [s.sample_id for s in samples if scope_has_locomo(client, s.sample_id)]
        if used:
            raise SystemExit(f"scopes {used} already hold LoCoMo memories: use --skip-ingest")


def evaluate(
    client: httpx.Client, configs: list[str], questions: list[Question], depth: int = DEPTH
) -> dict[str, Any]:
    """Runs every configuration: summaries overall and per category, and per-question rows."""
    results = {}
    for name in configs:
        rows = run_config(client, name, CONFIGS[name], questions, depth)
        results[name] = {
            "params": CONFIGS[name],
            "overall": summarise(rows),
            "by_category": summarise_by_category(rows),
            "questions": rows,
        }
    return results


def report(results: dict[str, Any], depth: int = DEPTH) -> str:
    """The markdown tables: configurations, then each engram configuration (or the first
    configuration) per category."""
    overall = {name: r["overall"] for name, r in results.items()}
    focus = [name for name in results if name.split(" ")[0] == "engram"] or [next(iter(results))]
    text = f"## LoCoMo retrieval (recall@k over evidence turns, depth {depth})\n\n"
    text += markdown_table("config", overall) + "\n"
    for name in focus:
        by_category = {**results[name]["by_category"], "overall": results[name]["overall"]}
        text += f"\n## {name} per category\n\n" + markdown_table("category", by_category) + "\n"
    return text


def run_protocol(
    client: httpx.Client, args: argparse.Namespace, all_samples: list[Sample], protocol: str
) -> tuple[dict[str, Any] | None, dict[str, Any], int]:
    """Ingests (unless skipped) and asks one protocol's questions; configs named with a
    ` (plain)` suffix for the plain protocol. Returns the ingest figures, results, questions."""
    scoped = in_protocol_scope(all_samples, protocol)
    questions = limit_questions(scoped, args.limit_questions)
    asked = {q.sample_id for q in questions}
    samples = [s for s in scoped if s.sample_id in asked or args.ingest_only]
    log(f"protocol {protocol}: asking {len(questions)}, ingesting {len(samples)} conversations")
    preflight(client, args, samples)
    ingested = None if args.skip_ingest else ingest(client, samples, args.wait_timeout, protocol)
    results = {} if args.ingest_only else evaluate(client, args.configs, questions, args.depth)
    suffix = "" if protocol == "default" else f" ({protocol})"
    return ingested, {f"{name}{suffix}": r for name, r in results.items()}, len(questions)


def main(argv: Sequence[str] | None = None) -> None:
    """Runs the benchmark end to end and writes the JSON report."""
    args = parse_args(argv)
    if not args.data.is_file():
        raise SystemExit(f"no data at {args.data}: pass --data PATH to a locomo10.json file")
    samples, stats = load_samples(args.data, args.samples)
    log(
        f"{stats['usable']} usable questions of {stats['questions_categories_1_4']} "
        "in categories 1–4"
    )
    protocols = ["default", "plain"] if args.protocol == "both" else [args.protocol]
    ingested, results, asked = {}, {}, 0
    with (
        engram(args) as (base, key),
        httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60
        ) as client,
    ):
        for protocol in protocols:
            ingested[protocol], found, asked = run_protocol(client, args, samples, protocol)
            results.update(found)
        health = checked(client.get("/health"), "GET /health")
    output = {
        "benchmark": "locomo",
        "data": str(args.data),
        "git_commit": git_commit(),
        "engram": base if args.base_url else "embedded (temporary data dir)",
        "embedder": health.get("embedder"),
        "dataset": stats,
        "asked": asked,
        "depth": args.depth,
        "protocols": protocols,
        "ingest": ingested,
        "configs": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(output, indent=2))
    if results:
        sys.stdout.write(report(results, args.depth))
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
