"""Offline check of ingest-time window vectors on LoCoMo: dense recall only, no service.

Every memory of a chat has one vector, its own turn's. Multi-hop and open-domain answers are
spread over turns that share no words with the question. This script measures, with the local
embedder Engram uses and the questions of a locomo10.json-format file, how a dense-only ranking
of each conversation's turns does when each turn also has a vector for its window of turns in
the same session (embedded as one text, or the mean of the turns' vectors), searched beside the
turn vectors and fused into the member turns' scores.

A window is named by the turns it takes before and after its own (SHAPES: b2 is the two turns
before and the turn itself). "spread" gives each turn the best score of any window it belongs
to; "turn + w X" adds w times the window score to the turn's cosine; "rrf(…)" fuses the two
rankings as Engram fuses channels; "…, context" adds Engram's context lift on top (rank.py).
Vectors are cached (`--cache`) so that variants cost no re-embedding.

Usage: .venv/bin/python bench/locomo_windows.py [--data PATH] [--cache FILE.npz]
       [--shapes b2,c3,...] [--context] [--whole-query]
"""

import argparse
import asyncio
import hashlib
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from app.embeddings import LocalEmbedder
from app.recall.names import query_names, without_names
from bench.locomo import CATEGORIES, DEFAULT_DATA, Sample, Turn, load_samples

ROOT = Path(__file__).resolve().parents[1]

# window shape -> (turns before, turns after)
SHAPES = {
    "b1": (1, 0),
    "b2": (2, 0),
    "b3": (3, 0),
    "f1": (0, 1),
    "c3": (1, 1),
    "c5": (2, 2),
    "c7": (3, 3),
}
KS = (10, 20)
CACHE = Path.home() / ".cache" / "engram" / "locomo-windows.npz"


def day_prefix(turn: Turn) -> str:
    """The date prefix Engram embeds with a memory (storage/mirror.py embedding_text)."""
    day = datetime.fromisoformat(turn.timestamp)
    return f"[{day.day} {day:%B %Y}] "


def turn_text(turn: Turn) -> str:
    return day_prefix(turn) + turn.content


def window(turns: Sequence[Turn], i: int, before: int, after: int) -> list[int]:
    """Indexes of the turns around i in the same session (i included), in order."""
    session = turns[i].session
    lo, hi = i, i
    while lo > 0 and i - lo < before and turns[lo - 1].session == session:
        lo -= 1
    while hi < len(turns) - 1 and hi - i < after and turns[hi + 1].session == session:
        hi += 1
    return list(range(lo, hi + 1))


def window_text(turns: Sequence[Turn], members: list[int]) -> str:
    return day_prefix(turns[members[0]]) + "\n".join(turns[j].content for j in members)


class Cache:
    """Vectors by text hash, kept in one .npz file between runs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path.exists():
            with np.load(path) as data:
                self.vectors = {k: data[k] for k in data.files}
        self.embedder = LocalEmbedder(threads=2)

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()

    def get(self, texts: Sequence[str], query: bool = False) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.vectors))
        if missing:
            sys.stderr.write(f"embedding {len(missing)} texts\n")
            vectors = asyncio.run(self._embed(missing, query))
            for text, vector in zip(missing, vectors, strict=True):
                self.vectors[self.key(text)] = np.asarray(vector, dtype=np.float32)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(self.path, **self.vectors)
        return np.vstack([self.vectors[self.key(t)] for t in texts])

    async def _embed(self, texts: list[str], query: bool) -> list[list[float]]:
        if query:
            return [await self.embedder.embed_query(t) for t in texts]
        return await self.embedder.embed(texts)


def dense_query(text: str) -> str:
    """What Engram's dense channel embeds: the question without the people it names."""
    return without_names(text, query_names(text)) or text


def unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)


Scorer = Callable[[np.ndarray], np.ndarray]  # query vectors [q, d] -> scores [q, turns]


def recall_rows(sample: Sample, scores: np.ndarray) -> list[tuple[int, float, float]]:
    """(category, R@10, R@20) per question, from the scores of every turn."""
    ids = [t.dia_id for t in sample.turns]
    rows = []
    for question, row in zip(sample.questions, scores, strict=True):
        order = np.argsort(-row, kind="stable")
        ranked = [ids[j] for j in order[: max(KS)]]
        wanted = set(question.evidence)
        rows.append((question.category, *(len(wanted & set(ranked[:k])) / len(wanted) for k in KS)))
    return rows


def summary(rows: list[tuple[int, float, float]]) -> str:
    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    parts = [f"{mean([r[1] for r in rows]):.4f} / {mean([r[2] for r in rows]):.4f}"]
    for number in CATEGORIES:
        chosen = [r for r in rows if r[0] == number]
        parts.append(f"{mean([r[1] for r in chosen]):.3f} / {mean([r[2] for r in chosen]):.3f}")
    return " | ".join(parts)


def rrf(scores: np.ndarray, k: int = 5) -> np.ndarray:
    """1 / (k + rank) of each turn, rank 0-based, per query (Engram's fusion, rank.py)."""
    ranks = np.argsort(np.argsort(-scores, axis=1, kind="stable"), axis=1)
    return 1.0 / (k + ranks)


def with_context(scores: np.ndarray, turns: Sequence[Turn], seeds: int = 10) -> np.ndarray:
    """Engram's context channel on top of a ranking: the fused match (reciprocal rank,
    normalised to 1 at rank 0) plus half the best match of a neighbouring seed turn."""
    fused = rrf(scores) * 5
    lifted = fused.copy()
    for q, row in enumerate(fused):
        for seed in np.argsort(-row, kind="stable")[:seeds]:
            for j in (seed - 1, seed + 1):
                if 0 <= j < len(turns) and turns[j].session == turns[seed].session:
                    lifted[q, j] = max(lifted[q, j], fused[q, j] + 0.5 * row[seed])
    return lifted


def variants(
    turn_vecs: np.ndarray, windows: dict[str, tuple[np.ndarray, list[list[int]]]]
) -> dict[str, Scorer]:
    """Every ranking compared: turn vectors alone, each window alone, and their fusions."""
    found: dict[str, Scorer] = {"turn": lambda q: q @ turn_vecs.T}
    for name, (vecs, members) in windows.items():
        n = len(members)
        # member matrix: M[w, j] = 1 if turn j is in window w
        member = np.zeros((n, turn_vecs.shape[0]), dtype=np.float32)
        for w, js in enumerate(members):
            member[w, js] = 1.0

        def own(q: np.ndarray, vecs: np.ndarray = vecs) -> np.ndarray:
            return q @ vecs.T  # window w is turn w's own window

        def spread(
            q: np.ndarray, vecs: np.ndarray = vecs, member: np.ndarray = member
        ) -> np.ndarray:
            s = q @ vecs.T  # [q, w]; each turn takes the best window it belongs to
            return np.max(np.where(member[None, :, :] > 0, s[:, :, None], -1.0), axis=1)

        found[f"{name}"] = own
        found[f"{name} spread"] = spread
        for weight in (0.3, 0.5, 1.0):
            found[f"turn + {weight} {name}"] = lambda q, own=own, w=weight: (
                q @ turn_vecs.T + w * own(q)
            )
            found[f"turn + {weight} {name} spread"] = lambda q, spread=spread, w=weight: (
                q @ turn_vecs.T + w * spread(q)
            )
        found[f"max(turn, {name})"] = lambda q, own=own: np.maximum(q @ turn_vecs.T, own(q))
        for weight in (0.5, 1.0):
            found[f"rrf(turn, {weight} {name} spread)"] = lambda q, spread=spread, w=weight: (
                rrf(q @ turn_vecs.T) + w * rrf(spread(q))
            )
    return found


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--shapes", default="c3,c5,f1,b1")
    parser.add_argument("--context", action="store_true", help="also with the context lift")
    parser.add_argument("--whole-query", action="store_true", help="embed names too")
    args = parser.parse_args(argv)
    samples, _ = load_samples(args.data)
    cache = Cache(args.cache)
    results: dict[str, list[tuple[int, float, float]]] = {}
    for sample in samples:
        turns = sample.turns
        turn_vecs = cache.get([turn_text(t) for t in turns])
        windows: dict[str, tuple[np.ndarray, list[list[int]]]] = {}
        for shape in args.shapes.split(","):
            before, after = SHAPES[shape]
            members = [window(turns, i, before, after) for i in range(len(turns))]
            texts = [window_text(turns, m) for m in members]
            windows[shape] = (cache.get(texts), members)
            means = unit(np.vstack([turn_vecs[m].sum(0) for m in members]))
            windows[f"mean-{shape}"] = (means, members)
        asked = [q.text if args.whole_query else dense_query(q.text) for q in sample.questions]
        query_vecs = cache.get(asked, query=True)
        for name, scorer in variants(turn_vecs, windows).items():
            scores = scorer(query_vecs)
            results.setdefault(name, []).extend(recall_rows(sample, scores))
            if args.context and not name.startswith("mean-"):
                lifted = with_context(scores, turns)
                results.setdefault(f"{name}, context", []).extend(recall_rows(sample, lifted))
    header = "R@10 / R@20 | " + " | ".join(CATEGORIES.values())
    lines = [f"| variant | {header} |"]
    lines += [f"| {name} | {summary(rows)} |" for name, rows in results.items()]
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
