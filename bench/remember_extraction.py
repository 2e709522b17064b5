"""Rule-based /remember extraction over LoCoMo: throughput, facts per turn, evidence coverage.

Every turn of every conversation goes through `extract_facts_by_rules` as a user turn stamped
with its session's date (LoCoMo's two speakers talk about themselves in the first person), one
call per session. Reported: turns per second (spaCy loaded beforehand), facts per turn, and the
share of evidence turns (the `evidence` of QA items of categories 1–4) that yield at least one
fact. `--show N` prints N random facts with the turn they came from, to judge precision by eye.

Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0, read from ../shared/data/locomo/ beside
the checkout by default; never copy it into the repository. `--data` takes any file in
`locomo10.json` format.

Usage: .venv/bin/python bench/remember_extraction.py [--data PATH] [--show N] [--seed S]
"""

import argparse
import json
import logging
import random
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from app.nlp import load_nlp
from app.remember.facts import ExtractedFact, Turn
from app.remember.rules import extract_facts_by_rules
from bench.locomo import (
    DEFAULT_DATA,
    normalise_dia_id,
    parse_session_date,
    scored_questions,
    session_numbers,
)

ROOT = Path(__file__).resolve().parents[1]

log = logging.getLogger("remember_extraction")


def session_turns(conversation: dict[str, Any]) -> list[list[Turn]]:
    """Each session's turns as user turns, stamped with the session's date; dia_id as message id."""
    sessions = []
    for number in session_numbers(conversation):
        moment = datetime.fromisoformat(
            parse_session_date(conversation[f"session_{number}_date_time"])
        )
        turns = conversation[f"session_{number}"]
        ids = [normalise_dia_id(turn["dia_id"]) or turn["dia_id"] for turn in turns]
        sessions.append(
            [Turn("user", turn["text"], moment, i) for turn, i in zip(turns, ids, strict=True)]
        )
    return sessions


def evidence_ids(sample: dict[str, Any]) -> set[str]:
    """The dia_ids cited as evidence by the sample's questions of categories 1–4."""
    questions = scored_questions(sample["sample_id"], sample["qa"])
    return {dia_id for question in questions for dia_id in question.evidence}


def run(raw: list[dict[str, Any]]) -> dict[str, Any]:
    """Extracts every session of every sample; returns the figures and the facts by turn."""
    sessions = [(s["sample_id"], turns) for s in raw for turns in session_turns(s["conversation"])]
    facts: dict[tuple[str, str], list[ExtractedFact]] = {}
    started = time.perf_counter()
    for sample_id, turns in sessions:
        for fact in extract_facts_by_rules(turns):
            facts.setdefault((sample_id, fact.message_id), []).append(fact)
    elapsed = time.perf_counter() - started
    turns_total = sum(len(turns) for _, turns in sessions)
    evidence = {(s["sample_id"], dia_id) for s in raw for dia_id in evidence_ids(s)}
    covered = sum(1 for key in evidence if key in facts)
    all_facts = [f for found in facts.values() for f in found]
    return {
        "samples": len(raw),
        "turns": turns_total,
        "seconds": round(elapsed, 2),
        "turns_per_second": round(turns_total / elapsed, 1),
        "facts": len(all_facts),
        "facts_per_turn": round(len(all_facts) / turns_total, 3),
        "turns_with_a_fact": len(facts),
        "evidence_turns": len(evidence),
        "evidence_turns_with_a_fact": covered,
        "evidence_share": round(covered / len(evidence), 3) if evidence else None,
        "facts_by_type": dict(Counter(f.type.value for f in all_facts).most_common()),
        "_facts": facts,
        "_texts": {
            (sample_id, t.message_id): t.content for sample_id, turns in sessions for t in turns
        },
    }


def show_sample(result: dict[str, Any], count: int, seed: int) -> None:
    keys = sorted(result["_facts"])
    for key in random.Random(seed).sample(keys, min(count, len(keys))):
        log.info("%s %s: %s", *key, result["_texts"][key])
        for fact in result["_facts"][key]:
            log.info("    → %s  [%s, slot=%s]", fact.content, fact.type.value, fact.slot)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo10.json format")
    parser.add_argument("--show", type=int, default=0, help="print N random turns with facts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    raw = json.loads(args.data.read_text())
    load_nlp()  # loading spaCy (about 2 s) is not extraction time
    result = run(raw)
    if args.show:
        show_sample(result, args.show, args.seed)
    figures = {k: v for k, v in result.items() if not k.startswith("_")}
    log.info("%s", json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
