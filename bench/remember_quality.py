"""What /remember keeps from ordinary chat, without an LLM: facts, updates, duplicates, distractors.

Runs the multi-session conversations of bench/remember_scenarios/ (a "dev" set the extractor
may be tuned on; a "held-out" set it must not be, written before the extraction code; and a
"fresh" set written later, once the held-out misses had been read one by one) through
`POST /remember` of a fresh Engram on the embedded default (own FalkorDB server, Qdrant Edge
shard, no LLM, SESSION_IDLE_SECONDS short so that each session is consolidated before the next
one arrives). Every conversation is
its own user; sessions are posted in order, their turns stamped `day` days after a fixed start.
After each call the bench waits for the job (the time from the 202 to `done` is the job's
latency) and for the session's consolidation.

Reported per set and overall:
- facts found: the expected keywords appear in one memory of the top 5 of `/recall` for the
  scenario's question (recall as configured, its relevance floor and gate included); beside it,
  the same with `relevance_floor=0` (recall's plain ranking, no gate) and the facts stored at all
  (a current memory holds the keywords), which separate extraction from retrieval;
- updates superseded: no current fact holds the old value (without the new one, and without
  saying that it ended: "User is no longer vegan") and a current fact holds the new value; and
  answered current: of the top 5 for the update's question, the first memory holding either
  value holds the new one (the turn that said the old value must rank below the current fact);
- found without the gate but hidden: facts in the top 5 with `relevance_floor=0` and not with
  the defaults (the gate must never hide a stored answer: target 0);
- duplicates: current facts beyond the first, per layer, holding a repeated fact;
- false memories: current facts holding a distractor's keywords (a fact stored about another
  person, holding one of its `unless` words, is fine);
- the 202 acknowledgement's p50/p95 (client side) and the job's p50/p95.
State is read from the graph directly (every memory of the user, with its layer and t_invalid);
the transcript layer (every turn, verbatim) counts for what recall finds, not for the facts'
state.

Usage: .venv/bin/python bench/remember_quality.py [--split dev|held_out|fresh|all] [--only ID ...]
       [--show] [--json PATH]
"""

import argparse
import json
import logging
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import yaml
from falkordb import FalkorDB

from bench._engram import keyed_engram, load_average, percentiles

ROOT = Path(__file__).resolve().parents[1]

log = logging.getLogger("remember_quality")
SCENARIOS = ROOT / "bench" / "remember_scenarios"
SPLITS = ("dev", "held_out", "fresh")
ADMIN_KEY = "bench-admin-key-remember-quality"
START = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
POLL_S = 0.005
JOB_TIMEOUT_S = 60.0
CONSOLIDATION_TIMEOUT_S = 20.0
ENV = {"SESSION_IDLE_SECONDS": "0.2", "REMEMBER_RATE_PER_MINUTE": "100000"}
MEMORIES = """
MATCH (m:Memory) WHERE m.user_id = $user_id
RETURN m.content, m.layer, m.t_invalid, m.role
"""
# A memory that says the old value ended ("User is no longer vegan", "User sold the Civic")
# mentions it without holding it as current.
ENDING = re.compile(
    r"\b(?:no longer|not|n't|quit|stopped|gave up|sold|died|passed away|broke up|moved from|"
    r"switched from|migrated from|left|ex)\b",
    re.I,
)
CONSOLIDATED = """
MATCH (s:Session {user_id: $user_id, session_id: $session_id}) RETURN s.consolidated_at
"""


def load(split: str) -> list[dict[str, Any]]:
    names = SPLITS if split == "all" else (split,)
    found = []
    for name in names:
        for conversation in yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text())[
            "conversations"
        ]:
            found.append({**conversation, "split": name})
    return found


def holds(content: str, keywords: list[Any]) -> bool:
    """Every keyword (alternatives split by "|") appears in the content, case-insensitively."""
    text = content.casefold()
    return all(
        any(alt.strip().casefold() in text for alt in str(word).split("|")) for word in keywords
    )


@dataclass
class Memory:
    content: str
    layer: str
    current: bool
    role: str | None


@dataclass
class Tally:
    facts: int = 0
    facts_found: int = 0
    facts_ranked: int = 0
    facts_stored: int = 0
    updates: int = 0
    superseded: int = 0
    answered_current: int = 0
    gate_hid: int = 0
    repeats: int = 0
    duplicates: int = 0
    distractors: int = 0
    false_memories: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: "Tally") -> None:
        for name in (
            "facts",
            "facts_found",
            "facts_ranked",
            "facts_stored",
            "updates",
            "superseded",
            "answered_current",
            "gate_hid",
            "repeats",
            "duplicates",
            "distractors",
            "false_memories",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.misses += other.misses

    def figures(self) -> dict[str, Any]:
        share = lambda a, b: round(100 * a / b, 1) if b else None  # noqa: E731
        return {
            "facts_found": f"{self.facts_found}/{self.facts}",
            "facts_found_pct": share(self.facts_found, self.facts),
            "facts_ranked_top5_without_gate": f"{self.facts_ranked}/{self.facts}",
            "facts_stored": f"{self.facts_stored}/{self.facts}",
            "updates_superseded": f"{self.superseded}/{self.updates}",
            "updates_superseded_pct": share(self.superseded, self.updates),
            "updates_answered_current": f"{self.answered_current}/{self.updates}",
            "found_without_gate_but_hidden": self.gate_hid,
            "duplicates": self.duplicates,
            "repeated_facts": self.repeats,
            "false_memories": f"{self.false_memories}/{self.distractors}",
        }


class Bench:
    def __init__(self, base: str, falkor_port: int) -> None:
        self.base = base
        self.graph = FalkorDB(host="127.0.0.1", port=falkor_port).select_graph("engram")
        self.acks: list[float] = []
        self.jobs: list[float] = []
        self.consolidation_timeouts = 0

    def client(self, user: str) -> httpx.Client:
        return httpx.Client(
            base_url=self.base, headers={"Authorization": f"Bearer key-{user}"}, timeout=60
        )

    def post_session(self, http: httpx.Client, user: str, number: int, session: dict) -> None:
        moment = START + timedelta(days=session.get("day", 0))
        messages = [
            {
                "role": role,
                "content": text,
                "timestamp": (moment + timedelta(seconds=i * 30)).isoformat(),
            }
            for i, (role, text) in enumerate(session["turns"])
        ]
        session_id = f"{user}-s{number}"
        started = time.perf_counter()
        answer = http.post("/remember", json={"messages": messages, "session_id": session_id})
        self.acks.append((time.perf_counter() - started) * 1000)
        answer.raise_for_status()
        self.wait_job(http, answer.json()["job_id"], started)
        self.wait_consolidated(user, session_id)

    def wait_job(self, http: httpx.Client, job_id: str, started: float) -> None:
        deadline = time.monotonic() + JOB_TIMEOUT_S
        while time.monotonic() < deadline:
            state = http.get(f"/remember/jobs/{job_id}").raise_for_status().json()
            if state["state"] == "done":
                self.jobs.append((time.perf_counter() - started) * 1000)
                return
            if state["state"] in ("dead", "aborted"):
                raise RuntimeError(f"job {job_id} ended {state['state']}: {state.get('error')}")
            time.sleep(POLL_S)
        raise RuntimeError(f"job {job_id} did not finish")

    def wait_consolidated(self, user: str, session_id: str) -> None:
        deadline = time.monotonic() + CONSOLIDATION_TIMEOUT_S
        while time.monotonic() < deadline:
            rows = self.graph.ro_query(
                CONSOLIDATED, {"user_id": user, "session_id": session_id}
            ).result_set
            if rows and rows[0][0]:
                return
            time.sleep(0.05)
        self.consolidation_timeouts += 1

    def memories(self, user: str) -> list[Memory]:
        rows = self.graph.ro_query(MEMORIES, {"user_id": user}).result_set
        return [Memory(c, layer, t_invalid is None, role) for c, layer, t_invalid, role in rows]

    def top5(self, http: httpx.Client, question: str, **params: Any) -> list[str]:
        answer = http.post("/recall", json={"query": question, "limit": 5, **params})
        return [r["memory"]["content"] for r in answer.raise_for_status().json()["results"]]


def score(bench: Bench, http: httpx.Client, user: str, conv: dict, show: bool) -> Tally:
    tally, stored = Tally(), bench.memories(user)
    # Facts are judged on the layers that hold facts: a transcript turn is what was said (it
    # keeps an old value or a friend's diet verbatim, and is neither stale nor false).
    current = [m for m in stored if m.current and m.layer != "transcript"]
    label = conv["id"]
    for fact in conv.get("facts") or []:
        tally.facts += 1
        top = bench.top5(http, fact["q"])
        ranked = bench.top5(http, fact["q"], relevance_floor=0)
        tally.facts_stored += any(holds(m.content, fact["expect"]) for m in current)
        tally.facts_ranked += any(holds(content, fact["expect"]) for content in ranked)
        if any(holds(content, fact["expect"]) for content in top):
            tally.facts_found += 1
        else:
            tally.gate_hid += any(holds(content, fact["expect"]) for content in ranked)
            tally.misses.append(f"{label} fact {fact['expect']}: top 5 = {top}")
    for update in conv.get("updates") or []:
        tally.updates += 1
        old, new = update["old"], update["new"]
        stale = [
            m.content
            for m in current
            if holds(m.content, old) and not holds(m.content, new) and not ENDING.search(m.content)
        ]
        fresh = any(holds(m.content, update["new"]) for m in current)
        answer = next(
            (c for c in bench.top5(http, update["q"]) if holds(c, old) or holds(c, new)), ""
        )
        if holds(answer, new) and (not holds(answer, old) or ENDING.search(answer)):
            tally.answered_current += 1
        else:
            tally.misses.append(f"{label} update {old}→{new}: answered first by {answer!r}")
        if not stale and fresh:
            tally.superseded += 1
        else:
            tally.misses.append(
                f"{label} update {update['old']}→{update['new']}: still current "
                f"{stale}, new value current: {fresh}"
            )
    for keywords in conv.get("repeats") or []:
        tally.repeats += 1
        for layer in ("raw", "consolidated"):
            same = [m.content for m in current if m.layer == layer and holds(m.content, keywords)]
            if len(same) > 1:
                tally.duplicates += len(same) - 1
                tally.misses.append(f"{label} duplicate {keywords} ({layer}): {same}")
    for distractor in conv.get("distractors") or []:
        tally.distractors += 1
        unless = distractor.get("unless") or []
        wrong = [
            m.content
            for m in current
            if holds(m.content, distractor["keywords"])
            and not any(holds(m.content, [word]) for word in unless)
        ]
        if wrong:
            tally.false_memories += 1
            tally.misses.append(f"{label} false memory ({distractor['kind']}): {wrong}")
    if show:
        log.info("--- %s (%s)", label, conv.get("style"))
        for memory in stored:
            mark = "  " if memory.current else "✗ "
            log.info("  %s[%s] %s", mark, memory.layer, memory.content)
    return tally


def run(conversations: list[dict], show: bool) -> dict[str, Any]:
    keys = {f"key-{c['split']}-{c['id']}": f"{c['split']}-{c['id']}" for c in conversations}
    env = {**ENV, "ENGRAM_API_KEYS": json.dumps(keys)}
    tallies = {split: Tally() for split in SPLITS}
    with keyed_engram("unused-user-key", ADMIN_KEY, env=env) as server:
        bench = Bench(server.base, server.falkor_port)
        for conv in conversations:
            user = f"{conv['split']}-{conv['id']}"
            with bench.client(user) as http:
                for number, session in enumerate(conv["sessions"]):
                    bench.post_session(http, user, number, session)
                tallies[conv["split"]].add(score(bench, http, user, conv, show))
        total = Tally()
        for tally in tallies.values():
            total.add(tally)
        return {
            "conversations": len(conversations),
            **{split: t.figures() for split, t in tallies.items() if t.facts or t.distractors},
            "all": total.figures(),
            "ack_202": percentiles(bench.acks),
            "job": percentiles(bench.jobs),
            "consolidation_timeouts": bench.consolidation_timeouts,
            "load_average": load_average(),
            "_misses": total.misses,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    parser.add_argument("--only", nargs="*", help="conversation ids to run")
    parser.add_argument("--show", action="store_true", help="print every stored memory")
    parser.add_argument("--json", type=Path, help="write the figures and misses here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    conversations = load(args.split)
    if args.only:
        conversations = [c for c in conversations if c["id"] in args.only]
    result = run(conversations, args.show)
    for miss in result["_misses"]:
        log.info("%s", miss)
    figures = {k: v for k, v in result.items() if not k.startswith("_")}
    log.info("%s", json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps({**figures, "misses": result["_misses"]}, indent=2))


if __name__ == "__main__":
    main()
