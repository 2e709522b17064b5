"""Passages of long turns, offline: is a turn better ranked by the mean of its passages' vectors
(what Engram stores) or by its best passage (what a multivector with MaxSim would give)?

For every answerable question of a LongMemEval file, every turn of its own history is embedded
with the local model, passage by passage (app/embeddings/passages.py), and ranked against the
question: by dense similarity alone, and fused with a plain BM25 (reciprocal rank, k 5, dense 1 :
BM25 2, as recall weighs them). Recall@1 and @10 of the turns marked `has_answer`, overall and
per question type. No service runs: it measures the scoring, not Engram. `--timing` also times
the local model on 1, 4 and 10 passages of long turns (what choosing a passage by meaning at
recall would cost); take that figure on a quiet machine and give the load beside it.

Data: LongMemEval (Wu et al., ICLR 2025), MIT licence, read from ../shared/data/longmemeval/;
never copied into the repository.

Usage: .venv/bin/python bench/passage_scoring.py [--data PATH] [--by-type] [--timing]
"""

import argparse
import asyncio
import json
import math
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.embeddings import create_embedder
from app.embeddings.base import Embedder
from app.embeddings.passages import passages

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval-oracle-dev.json"
RRF_K = 5
WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def bm25_scores(docs: Sequence[list[str]], query: list[str], k1: float = 1.2, b: float = 0.75):
    """Okapi BM25 of each document for the query (no stop words, no stemming: a plain baseline)."""
    counts = [Counter(d) for d in docs]
    average = sum(len(d) for d in docs) / max(1, len(docs))
    frequency = Counter(w for c in counts for w in c)
    scores = []
    for c, length in zip(counts, (len(d) for d in docs), strict=True):
        score = 0.0
        for w in query:
            if w in c:
                idf = math.log(1 + (len(docs) - frequency[w] + 0.5) / (frequency[w] + 0.5))
                score += idf * c[w] * (k1 + 1) / (c[w] + k1 * (1 - b + b * length / average))
        scores.append(score)
    return np.asarray(scores)


def fused(*weighted: tuple[float, np.ndarray]) -> np.ndarray:
    total = np.zeros(len(weighted[0][1]))
    for weight, scores in weighted:
        ranks = np.argsort(np.argsort(-scores, kind="stable"))
        total += weight / (RRF_K + ranks)
    return total


async def question_scores(embedder: Embedder, item: dict[str, Any]) -> dict[str, Any] | None:
    """Each scoring's (R@1, R@10) for one question; None without evidence turns."""
    turns, roles, evidence = [], [], set()
    for session in item["haystack_sessions"]:
        for turn in session:
            if turn.get("has_answer"):
                evidence.add(len(turns))
            turns.append(turn["content"])
            roles.append(turn["role"])
    if not evidence:
        return None
    pieces = [passages(text) for text in turns]
    flat = [piece for split in pieces for piece in split]
    vectors = np.asarray(await embedder.embed([*flat, item["question"]]), dtype=np.float32)
    query, vectors = vectors[-1], vectors[:-1]
    mean, best, start = [], [], 0
    for split in pieces:
        block = vectors[start : start + len(split)]
        start += len(split)
        centre = block.mean(axis=0)
        mean.append(float(centre / np.linalg.norm(centre) @ query))
        best.append(float((block @ query).max()))
    mean_s, best_s = np.asarray(mean), np.asarray(best)
    user_best = np.where(np.asarray(roles) == "user", best_s, mean_s)
    bm25 = bm25_scores([words(t) for t in turns], words(item["question"]))
    scorings = {
        "dense, mean of passages (stored today)": mean_s,
        "dense, best passage": best_s,
        "fused, mean of passages": fused((1, mean_s), (2, bm25)),
        "fused, best passage": fused((1, best_s), (2, bm25)),
        "fused, mean + best passage at 0.5": fused((1, mean_s), (0.5, best_s), (2, bm25)),
        "fused, best passage for user turns only": fused((1, user_best), (2, bm25)),
    }
    found = {}
    for name, scores in scorings.items():
        order = list(np.argsort(-scores, kind="stable"))
        found[name] = tuple(len(set(order[:k]) & evidence) / len(evidence) for k in (1, 10))
    return {"type": item["question_type"], "found": found}


async def timing(embedder: Embedder, data: list[dict[str, Any]]) -> dict[int, float]:
    """Milliseconds to embed 1, 4 and 10 passages of long turns, once warm."""
    long_turns = [
        turn["content"][:900]
        for item in data
        for session in item["haystack_sessions"]
        for turn in session
        if len(turn["content"]) > 900
    ]
    await embedder.embed(["warm up"])
    spent = {}
    for n in (1, 4, 10):
        started = time.perf_counter()
        await embedder.embed(long_turns[:n])
        spent[n] = round((time.perf_counter() - started) * 1000)
    return spent


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--by-type", action="store_true", help="per question type too")
    parser.add_argument("--timing", action="store_true", help="time the model on passages")
    args = parser.parse_args()
    data = json.loads(args.data.read_text())
    embedder = create_embedder("local", threads=2)
    rows = []
    for item in data:
        if not item["question_id"].endswith("_abs"):
            row = await question_scores(embedder, item)
            if row is not None:
                rows.append(row)
    lines = [f"{len(rows)} questions", "", "| scoring | R@1 | R@10 |", "|---|---|---|"]
    for name in rows[0]["found"]:
        r1, r10 = (np.mean([row["found"][name][i] for row in rows]) for i in (0, 1))
        lines.append(f"| {name} | {r1:.3f} | {r10:.3f} |")
        if args.by_type:
            for kind in sorted({row["type"] for row in rows}):
                subset = [row["found"][name] for row in rows if row["type"] == kind]
                r1, r10 = (np.mean([s[i] for s in subset]) for i in (0, 1))
                lines.append(f"|   {kind} | {r1:.3f} | {r10:.3f} |")
    if args.timing:
        spent = await timing(embedder, data)
        load = os.getloadavg()[0]
        lines += ["", f"embedding passages (ms): {spent}, load average {load:.2f}"]
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
