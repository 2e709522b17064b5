"""What Engram's ranking leaves on the table, on LoCoMo: where the evidence sits, and how a
ranking model fitted on features of the top candidates does on conversations it never saw.

Every question of a locomo10.json-format file is asked of a running Engram (the data ingested by
`bench/locomo.py --ingest-only`) with `limit=100`. Then:
- the share of each question's evidence at ranks 1–10, 11–20, 21–50, 51–100 and beyond;
- for the top `--top` candidates, features Engram already has or could compute: rank, the
  `score_components` (match, vector, keyword, context, name), the cosines of the question to the
  turn, to its window (the turn and the two before it) and of the whole question, the share of
  the turn's sentences that ask (`app/recall/rank.py` `question_share`) and its length;
- a logistic model over those features, fitted with each conversation held out in turn, ranks
  the held-out conversation's candidates. Its R@10 / R@20 beside Engram's own order says how
  much a re-weighting of these features could still gain, and on which features.

This is an analysis, not a ranking Engram uses. Vectors come from the local embedder, cached as
in `bench/locomo_windows.py` (`--cache`).

Usage: .venv/bin/python bench/locomo_ranking.py --data PATH --base-url URL --api-key KEY
       [--top 50] [--cache FILE.npz]
"""

import argparse
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np

from app.recall.rank import question_share
from app.recall.tuning import default_recall_config
from bench import locomo
from bench import locomo_windows as windows

ROOT = Path(__file__).resolve().parents[1]
RRF_K = default_recall_config().weights.rrf_k

DEPTH = 100
RANK_BUCKETS = ((1, 10), (11, 20), (21, 50), (51, 100))
FEATURES = (
    "reciprocal rank",
    "log rank",
    "match",
    "vector",
    "keyword",
    "context",
    "name",
    "turn cosine",
    "window cosine",
    "whole-question cosine",
    "question share",
    "log length",
)
FEATURE_SETS = {
    "rank only": ("reciprocal rank", "log rank"),
    "rank + question share": ("reciprocal rank", "log rank", "question share"),
    "all features": FEATURES,
}


@dataclass
class Asked:
    """One question's answer from Engram: its ranked dia_ids and their score components."""

    question: locomo.Question
    ranked: list[str]
    components: list[dict[str, float]]
    scores: list[float]


@dataclass
class Candidates:
    """The top candidates of one question: a feature row each, and which are evidence."""

    asked: Asked
    ids: list[str]
    features: np.ndarray  # [candidates, len(FEATURES)]
    evidence: np.ndarray  # [candidates], 1.0 for an evidence turn
    scores: np.ndarray  # [candidates], Engram's final scores


def ask_all(client: httpx.Client, samples: Sequence[locomo.Sample]) -> list[Asked]:
    """Every question, asked with limit=DEPTH in its conversation's scope."""
    asked = []
    for sample in samples:
        for question in sample.questions:
            body, _ = locomo.recall(client, sample.sample_id, question.text, {}, DEPTH)
            results = body.get("results") or []
            shown = [
                (dia_id, result.get("score_components") or {}, result["score"])
                for dia_id, result in zip(locomo.ranked_dia_ids(body), results, strict=True)
                if dia_id
            ]
            asked.append(
                Asked(
                    question,
                    [dia_id for dia_id, _, _ in shown],
                    [parts for _, parts, _ in shown],
                    [score for _, _, score in shown],
                )
            )
    return asked


def rank_shares(asked: Sequence[Asked]) -> dict[str, float]:
    """The share of the evidence (each question's counting as one) in each rank bucket."""
    shares: dict[str, float] = defaultdict(float)
    for one in asked:
        evidence = set(one.question.evidence)
        for dia_id in evidence:
            rank = one.ranked.index(dia_id) + 1 if dia_id in one.ranked else None
            shares[_bucket(rank)] += 1 / len(evidence) / len(asked)
    return dict(shares)


def _bucket(rank: int | None) -> str:
    for low, high in RANK_BUCKETS:
        if rank is not None and low <= rank <= high:
            return f"{low}–{high}"
    return f"beyond {DEPTH}"


class Vectors:
    """Each conversation's turn and window vectors, and the questions' vectors."""

    def __init__(self, cache: windows.Cache, samples: Sequence[locomo.Sample]) -> None:
        self.turn: dict[str, np.ndarray] = {}
        self.window: dict[str, np.ndarray] = {}
        self.index: dict[str, dict[str, int]] = {}
        for sample in samples:
            turns = sample.turns
            members = [windows.window(turns, i, 2, 0) for i in range(len(turns))]
            self.turn[sample.sample_id] = windows.unit(
                cache.get([windows.turn_text(t) for t in turns])
            )
            self.window[sample.sample_id] = windows.unit(
                cache.get([windows.window_text(turns, m) for m in members])
            )
            self.index[sample.sample_id] = {t.dia_id: i for i, t in enumerate(turns)}
        texts = [q.text for s in samples for q in s.questions]
        dense = cache.get([windows.dense_query(t) for t in texts], query=True)
        self.dense = dict(zip(texts, dense, strict=True))
        self.whole = dict(zip(texts, cache.get(texts, query=True), strict=True))


def candidates(asked: Asked, vectors: Vectors, contents: dict[str, str], top: int) -> Candidates:
    """The feature rows of one question's top candidates (turns of its conversation only)."""
    sample_id, text = asked.question.sample_id, asked.question.text
    index = vectors.index[sample_id]
    turn_cos = vectors.turn[sample_id] @ vectors.dense[text]
    window_cos = vectors.window[sample_id] @ vectors.dense[text]
    whole_cos = vectors.turn[sample_id] @ vectors.whole[text]
    shown = list(zip(asked.ranked, asked.components, asked.scores, strict=True))[:top]
    best_keyword = max([c.get("keyword", 0.0) for _, c, _ in shown] + [1e-9])
    rows, ids, scores = [], [], []
    for rank, (dia_id, parts, score) in enumerate(shown):
        if dia_id not in index:
            continue
        i, content = index[dia_id], contents[dia_id]
        rows.append(
            [
                1 / (RRF_K + rank),
                math.log1p(rank),
                parts.get("match", 0.0),
                parts.get("vector", 0.0),
                parts.get("keyword", 0.0) / best_keyword,
                parts.get("context", 0.0),
                parts.get("name", 0.0),
                turn_cos[i],
                window_cos[i],
                whole_cos[i],
                question_share(content),
                math.log(len(content) + 1),
            ]
        )
        ids.append(dia_id)
        scores.append(score)
    evidence = np.array([float(d in asked.question.evidence) for d in ids])
    features = np.array(rows).reshape(-1, len(FEATURES))
    return Candidates(asked, ids, features, evidence, np.array(scores))


@dataclass(frozen=True)
class Model:
    weights: np.ndarray
    mean: np.ndarray
    scale: np.ndarray

    def score(self, features: np.ndarray) -> np.ndarray:
        return ((features - self.mean) / self.scale) @ self.weights[1:] + self.weights[0]


def fit_logistic(
    features: np.ndarray, labels: np.ndarray, l2: float = 1.0, steps: int = 400, rate: float = 0.5
) -> Model:
    """Logistic regression by gradient descent on standardised features (bias first)."""
    mean, scale = features.mean(0), features.std(0) + 1e-9
    design = np.hstack([np.ones((len(features), 1)), (features - mean) / scale])
    weights = np.zeros(design.shape[1])
    for _ in range(steps):
        predicted = 1 / (1 + np.exp(-design @ weights))
        penalty = l2 * np.concatenate([[0.0], weights[1:]])
        weights -= rate * (design.T @ (predicted - labels) + penalty) / len(labels)
    return Model(weights, mean, scale)


def held_out_orders(pool: Sequence[Candidates], columns: Sequence[int]) -> dict[int, list[str]]:
    """Each question's candidates ranked by a model fitted on the other conversations."""
    orders = {}
    for held in {c.asked.question.sample_id for c in pool}:
        train = [c for c in pool if c.asked.question.sample_id != held]
        model = fit_logistic(
            np.vstack([c.features[:, columns] for c in train]),
            np.concatenate([c.evidence for c in train]),
        )
        for number, one in enumerate(pool):
            if one.asked.question.sample_id == held:
                scores = model.score(one.features[:, columns])
                orders[number] = [one.ids[j] for j in np.argsort(-scores, kind="stable")]
    return orders


def recall_rows(
    pool: Sequence[Candidates], order: Callable[[int, Candidates], list[str]]
) -> dict[str, tuple[float, float]]:
    """R@10 / R@20 overall and per category for a ranking of each question's candidates."""
    found: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for number, one in enumerate(pool):
        ranked = order(number, one) + one.asked.ranked[len(one.ids) :]
        wanted = set(one.asked.question.evidence)
        row = tuple(len(wanted & set(ranked[:k])) / len(wanted) for k in (10, 20))
        for key in ("overall", locomo.CATEGORIES[one.asked.question.category]):
            found[key].append(row)
    return {key: tuple(np.mean(rows, axis=0)) for key, rows in found.items()}


Place = dict[str, tuple[int, int]]  # dia_id -> (session, position in the conversation)
Order = Callable[[int, Candidates], list[str]]


def variant_orders(places: dict[str, Place]) -> dict[str, Order]:
    """Re-orderings of each question's top candidates, tried as changes to Engram's ranking: a
    cosine added to the score as a term, diversity among neighbouring turns, and a lift for the
    turn two after a match (the same speaker going on with the topic)."""
    variants: dict[str, Order] = {}
    terms = (("window cosine", (0.2, 0.4, 0.7)), ("whole-question cosine", (0.2, 0.4)))
    for feature, weights in terms:
        for weight in weights:
            variants[f"score + {weight} × {feature}"] = _with_term(FEATURES.index(feature), weight)
    for penalty in (0.05, 0.1, 0.2):
        variants[f"score − {penalty} per adjacent turn placed above"] = _diverse(places, penalty)
    for share in (0.1, 0.2):
        variants[f"score + {share} × match of a top-10 turn two before"] = _two_on(places, share)
    return variants


def _ordered(one: Candidates, scores: np.ndarray) -> list[str]:
    return [one.ids[j] for j in np.argsort(-scores, kind="stable")]


def _with_term(column: int, weight: float) -> Order:
    return lambda _, one: _ordered(one, one.scores + weight * one.features[:, column])


def _adjacent(place: Place, a: str, b: str) -> bool:
    return place[a][0] == place[b][0] and abs(place[a][1] - place[b][1]) == 1


def _diverse(places: dict[str, Place], penalty: float) -> Order:
    """Greedy: a candidate loses `penalty` for each adjacent turn already placed above it."""

    def order(_: int, one: Candidates) -> list[str]:
        place = places[one.asked.question.sample_id]
        left = dict(zip(one.ids, one.scores, strict=True))
        placed: list[str] = []
        while left:
            near = {d: sum(_adjacent(place, d, p) for p in placed) for d in left}
            best = max(left, key=lambda d: left[d] - penalty * near[d])
            placed.append(best)
            del left[best]
        return placed

    return order


def _two_on(places: dict[str, Place], share: float) -> Order:
    """The turn two after one of the 10 best (same session) gains `share` of that turn's match."""

    def order(_: int, one: Candidates) -> list[str]:
        place = places[one.asked.question.sample_id]
        at = {place[d]: d for d in one.ids}
        lift = np.zeros(len(one.ids))
        matches = one.features[:, FEATURES.index("match")]
        for seed, match in zip(one.ids[:10], matches, strict=False):
            session, position = place[seed]
            if (later := at.get((session, position + 2))) is not None:
                j = one.ids.index(later)
                lift[j] = max(lift[j], share * match)
        return _ordered(one, one.scores + lift)

    return order


def table(results: dict[str, dict[str, tuple[float, float]]]) -> str:
    columns = ["overall", *locomo.CATEGORIES.values()]
    lines = ["| ranking | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for name, figures in results.items():
        cells = [f"{figures[c][0]:.4f} / {figures[c][1]:.4f}" for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=locomo.DEFAULT_DATA)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--top", type=int, default=50, help="candidates re-ranked (≤ 100)")
    parser.add_argument("--cache", type=Path, default=windows.CACHE)
    parser.add_argument("--variants", action="store_true", help="also the tried re-orderings")
    args = parser.parse_args(argv)
    samples, _ = locomo.load_samples(args.data)
    headers = {"Authorization": f"Bearer {args.api_key}"}
    with httpx.Client(base_url=args.base_url.rstrip("/"), headers=headers, timeout=60) as client:
        asked = ask_all(client, samples)
    shares = rank_shares(asked)
    buckets = [f"{low}–{high}" for low, high in RANK_BUCKETS] + [f"beyond {DEPTH}"]
    out = ["Share of the evidence by rank:", "", "| " + " | ".join(buckets) + " |"]
    out += [
        "|---" * len(buckets) + "|",
        "| " + " | ".join(f"{shares.get(b, 0):.3f}" for b in buckets) + " |",
    ]
    vectors = Vectors(windows.Cache(args.cache), samples)
    contents = {s.sample_id: {t.dia_id: t.content for t in s.turns} for s in samples}
    pool = [candidates(one, vectors, contents[one.question.sample_id], args.top) for one in asked]
    results = {"Engram": recall_rows(pool, lambda _, one: one.asked.ranked[: len(one.ids)])}
    for name, chosen in FEATURE_SETS.items():
        orders = held_out_orders(pool, [FEATURES.index(f) for f in chosen])
        results[f"held-out model, {name}"] = recall_rows(pool, lambda n, _, o=orders: o[n])
    if args.variants:
        places = {
            s.sample_id: {t.dia_id: (t.session, i) for i, t in enumerate(s.turns)} for s in samples
        }
        for name, order in variant_orders(places).items():
            results[name] = recall_rows(pool, order)
    out += ["", f"R@10 / R@20, top {args.top} re-ranked:", "", table(results)]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
