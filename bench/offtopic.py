"""Off-topic benchmark: how often does recall answer a question that nothing stored is about?

General-knowledge and how-to questions (bench/offtopic_questions.json: geography, science,
programming, sport, history, how-to, …) are asked
- in the scope of every LoCoMo conversation (one memory per turn, as bench/locomo.py stores
  them), and
- against small stores: a few facts about a person, written through POST /remember (one
  session each, in its own agent scope), and the same messages stored as they are through
  POST /memory/batch (scope `<name>-direct`): /remember keeps only what its extraction finds,
  so the on-topic check is meaningful for recall on the direct stores.

With `--lme PATH` (a LongMemEval file), its abstention questions (`_abs`: the history does not
hold the answer, though it holds something close) are asked too, each in a scope holding its own
history, one memory per turn (as bench/longmemeval.py stores them).

For each question it records whether GET /recall returned any result (and its `relevant` flag)
and whether POST /recall/context (without core memories) put any memory into the block. A few
on-topic questions per small store check that the stores still answer what they know.

Data: LoCoMo (CC BY-NC 4.0) is read from ../shared/data/locomo/ beside the checkout by default
(`--data`), never copied into the repository.

Usage: .venv/bin/python bench/offtopic.py [--data PATH] [--samples conv-26,...] [--lme PATH]
       [--base-url URL --api-key KEY] [--out PATH]
(with --base-url, scopes that already hold their memories are not written again)
"""

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench import locomo, longmemeval

ROOT = Path(__file__).resolve().parents[1]

QUESTIONS = ROOT / "bench" / "offtopic_questions.json"
DEFAULT_OUT = ROOT / "bench" / "results" / "offtopic.json"
LIMIT = 10
REMEMBER_TIMEOUT_S = 300
# Small stores: what a person told an assistant in one chat, and what they might ask of it.
SMALL_STORES: dict[str, dict[str, list[str]]] = {
    "small-allergy": {
        "said": [
            "I'm allergic to peanuts, so please keep that in mind.",
            "My daughter Emma plays the violin in the school orchestra.",
            "I always prefer window seats on long flights.",
        ],
        "asks": ["What am I allergic to?", "Which instrument does Emma play?"],
    },
    "small-nurse": {
        "said": [
            "I work as a night nurse at the hospital in Leeds.",
            "My dog is called Biscuit and he is a beagle.",
            "I'm learning Spanish on Saturday mornings.",
        ],
        "asks": ["Where do I work?", "What is my dog's name?"],
    },
    "small-porto": {
        "said": [
            "I live in Porto with my partner Joana.",
            "I drive an old blue Volvo estate.",
            "I've been vegetarian for ten years.",
        ],
        "asks": ["What car do I drive?", "Who do I live with?"],
    },
    "small-billing": {
        "said": [
            "I manage the billing team at Northwind.",
            "We deploy the invoicing service every Thursday afternoon.",
            "I use a standing desk and a split keyboard.",
        ],
        "asks": ["When do we deploy the invoicing service?", "Which team do I manage?"],
    },
    "small-climbing": {
        "said": [
            "I go bouldering at the climbing gym twice a week.",
            "My favourite author is Ursula K. Le Guin.",
            "I have two cats, Pixel and Mochi.",
        ],
        "asks": ["What are my cats called?", "Who is my favourite author?"],
    },
}


def load_questions(path: Path = QUESTIONS) -> list[dict[str, str]]:
    """The off-topic questions: [{topic, text}, …]."""
    return json.loads(path.read_text())["questions"]


def remember(client: httpx.Client, scope: str, said: Sequence[str]) -> None:
    """One /remember session of the person's messages, waited for until done."""
    body = {
        "session_id": f"{scope}-chat",
        "messages": [{"role": "user", "content": text} for text in said],
    }
    job = locomo.checked(
        client.post("/remember", json=body, headers=locomo.agent(scope)), "POST /remember"
    )
    deadline = time.monotonic() + REMEMBER_TIMEOUT_S
    while True:
        state = locomo.checked(
            client.get(f"/remember/jobs/{job['job_id']}", headers=locomo.agent(scope)),
            "GET /remember/jobs",
        )["state"]
        if state == "done":
            return
        if state in ("dead", "aborted") or time.monotonic() > deadline:
            raise RuntimeError(f"/remember for {scope}: job {state}")
        time.sleep(0.5)


def stored_count(client: httpx.Client, scope: str) -> int:
    """How many memories the scope holds (what /remember kept of a small store)."""
    found = client.get("/recall", params={"limit": 100}, headers=locomo.agent(scope))
    return locomo.checked(found, "GET /recall")["count"]


def is_empty(client: httpx.Client, scope: str) -> bool:
    """Whether the scope holds no memory yet (a previous run may have filled it)."""
    params = {"limit": 1}
    found = client.get("/recall", params=params, headers=locomo.agent(scope))
    return locomo.checked(found, "GET /recall")["count"] == 0


def ingest(
    client: httpx.Client,
    samples: list[locomo.Sample],
    unanswerable: list[longmemeval.Question],
    timeout_s: float,
) -> None:
    """The LoCoMo conversations, the small stores and the LongMemEval histories not stored yet,
    searchable."""
    missing = [s for s in samples if not locomo.scope_has_locomo(client, s.sample_id)]
    if missing:
        locomo.ingest(client, missing, timeout_s)
    dead_before = locomo.embed_jobs(client)["dead"]
    for question in unanswerable:
        if is_empty(client, question.scope):
            turns = [t for session in question.sessions for t in session]
            bodies = [b for turn in turns for b in longmemeval.memory_bodies(turn)]
            for start in range(0, len(bodies), longmemeval.BATCH_SIZE):
                batch = {"memories": bodies[start : start + longmemeval.BATCH_SIZE]}
                stored = client.post(
                    "/memory/batch", json=batch, headers=locomo.agent(question.scope)
                )
                locomo.checked(stored, "POST /memory/batch")
    for scope, store in SMALL_STORES.items():
        if is_empty(client, scope):
            remember(client, scope, store["said"])
        if is_empty(client, direct(scope)):
            memories = {"memories": [{"content": text} for text in store["said"]]}
            stored = client.post(
                "/memory/batch", json=memories, headers=locomo.agent(direct(scope))
            )
            locomo.checked(stored, "POST /memory/batch")
    locomo.wait_searchable(client, dead_before, timeout_s)


def direct(scope: str) -> str:
    """The scope holding a small store's messages as they were said."""
    return f"{scope}-direct"


def ask(client: httpx.Client, scope: str, question: str) -> dict[str, Any]:
    """Whether /recall and /recall/context return anything for the question in the scope."""
    headers = locomo.agent(scope)
    params = {"query": question, "limit": LIMIT}
    recalled = locomo.checked(client.get("/recall", params=params, headers=headers), "GET /recall")
    body = {"query": question, "limit": LIMIT, "include_core": False}
    packed = locomo.checked(
        client.post("/recall/context", json=body, headers=headers), "POST /recall/context"
    )
    return {
        "scope": scope,
        "question": question,
        "results": len(recalled["results"]),
        "relevant": recalled.get("relevant"),
        "context_memories": len(packed["memory_ids"]),
    }


def shares(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Share of questions with any /recall result, and with a non-empty /recall/context block."""
    if not rows:
        return {"n": 0}
    return {
        "n": len(rows),
        "recall_nonempty": round(statistics.fmean(r["results"] > 0 for r in rows), 4),
        "context_nonempty": round(statistics.fmean(r["context_memories"] > 0 for r in rows), 4),
        "relevant_false": round(statistics.fmean(r["relevant"] is False for r in rows), 4),
    }


def report(summary: dict[str, dict[str, Any]]) -> str:
    """The markdown table."""
    lines = [
        "| asked | n | /recall non-empty | /recall/context non-empty | relevant: false |",
        "|---|---|---|---|---|",
    ]
    for name, s in summary.items():
        if s.get("n"):
            lines.append(
                f"| {name} | {s['n']} | {s['recall_nonempty']:.3f} | "
                f"{s['context_nonempty']:.3f} | {s['relevant_false']:.3f} |"
            )
    return "## Off-topic questions\n\n" + "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--samples", default="", help="comma-separated sample ids (default all)")
    parser.add_argument("--lme", type=Path, default=None, help="a LongMemEval file: its _abs")
    parser.add_argument("--base-url", default=None, help="use a running Engram")
    parser.add_argument("--api-key", default=None, help="its API key (with --base-url)")
    parser.add_argument("--wait-timeout", type=float, default=1800)
    parser.add_argument("--workers", type=int, default=2, help="ENGRAM_WORKERS when embedded")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    args.samples = [s.strip() for s in args.samples.split(",") if s.strip()]
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if not args.data.is_file():
        raise SystemExit(f"no data at {args.data}: pass --data PATH to a locomo10.json file")
    samples, _ = locomo.load_samples(args.data, args.samples)
    questions = load_questions()
    lme = longmemeval.load_questions(args.lme, None, 0) if args.lme else []
    unanswerable = [q for q in lme if q.abstention]
    with (
        locomo.engram(args) as (base, key),
        httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60
        ) as client,
    ):
        ingest(client, samples, unanswerable, args.wait_timeout)
        in_conversations = [ask(client, s.sample_id, q["text"]) for s in samples for q in questions]
        in_small = [ask(client, scope, q["text"]) for scope in SMALL_STORES for q in questions]
        in_direct = [
            ask(client, direct(scope), q["text"]) for scope in SMALL_STORES for q in questions
        ]
        on_topic = {
            kind: [
                ask(client, name(scope), question)
                for scope, store in SMALL_STORES.items()
                for question in store["asks"]
            ]
            for kind, name in (("remember", str), ("direct", direct))
        }
        in_lme = [ask(client, q.scope, q.text) for q in unanswerable]
        stored = {scope: stored_count(client, scope) for scope in SMALL_STORES}
    summary = {
        "LoCoMo conversations (off-topic)": shares(in_conversations),
        "small /remember stores (off-topic)": shares(in_small),
        "small direct stores (off-topic)": shares(in_direct),
        "all off-topic": shares(in_conversations + in_small + in_direct),
        "small /remember stores, on-topic": shares(on_topic["remember"]),
        "small direct stores, on-topic": shares(on_topic["direct"]),
        "LongMemEval abstention questions (unanswerable)": shares(in_lme),
    }
    output = {
        "benchmark": "offtopic",
        "git_commit": locomo.git_commit(),
        "questions": len(questions),
        "remembered_facts": stored,
        "summary": summary,
        "rows": in_conversations
        + in_small
        + in_direct
        + on_topic["remember"]
        + on_topic["direct"]
        + in_lme,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(output, indent=2))
    sys.stdout.write(report(summary))


if __name__ == "__main__":
    main()
