"""Entity extraction quality on the hand-labelled set, and the throughput of `extract_many`.

Quality is micro precision, recall and F1 over (category, slug) pairs, overall, per category and
per split of the set (tuning, held-out 1 and 2; see bench/entity_cases.py for what the
held-out scores were before they were looked at), plus a category-agnostic match (slug only)
that shows how much of the error is the kind, not the name. Throughput is sentences per second
over the labelled sentences repeated to ~2,000 texts, after a warm-up run.

Usage: .venv/bin/python bench/entity_extraction.py [--texts N] [--batch-size N] [--repeat N]
       [--errors]
"""

import argparse
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.enrichment.entities import ENTITY_CATEGORIES, Entity, extract_many, slugify
from bench.entity_cases import CASES, SPLITS, Label

Pair = tuple[str, str]  # (category, slug)


@dataclass(frozen=True)
class Score:
    true_positives: int
    predicted: int
    expected: int

    @property
    def precision(self) -> float:
        return self.true_positives / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.true_positives / self.expected if self.expected else 1.0

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0


@dataclass(frozen=True)
class Report:
    overall: Score
    any_category: Score
    by_category: dict[str, Score]


def expected_pairs(labels: Iterable[Label]) -> set[Pair]:
    """Labels as (category, slug), the key extraction is judged on."""
    return {(category, slugify(name)) for category, name in labels}


def predicted_pairs(entities: Iterable[Entity]) -> set[Pair]:
    return {(entity.category, entity.slug) for entity in entities}


def micro(pairs: Iterable[tuple[set[Pair], set[Pair]]]) -> Score:
    """Micro-averaged counts over (predicted, expected) sets."""
    hits = predicted = expected = 0
    for got, want in pairs:
        hits += len(got & want)
        predicted += len(got)
        expected += len(want)
    return Score(hits, predicted, expected)


def evaluate(predictions: Sequence[Iterable[Entity]], labels: Sequence[Iterable[Label]]) -> Report:
    """Scores extracted entities against the labels, text by text."""
    got = [predicted_pairs(entities) for entities in predictions]
    want = [expected_pairs(text_labels) for text_labels in labels]
    by_category = {
        category: micro(
            ({p for p in g if p[0] == category}, {p for p in w if p[0] == category})
            for g, w in zip(got, want, strict=True)
        )
        for category in ENTITY_CATEGORIES
    }
    slugs_only = (({s for _, s in g}, {s for _, s in w}) for g, w in zip(got, want, strict=True))
    return Report(micro(zip(got, want, strict=True)), micro(slugs_only), by_category)


def evaluate_cases(cases: Sequence[tuple[str, Iterable[Label]]] = CASES) -> Report:
    """Runs the extractor over labelled cases (by default the whole set) and scores it."""
    return evaluate(extract_many([text for text, _ in cases]), [labels for _, labels in cases])


def say(line: str) -> None:
    """Writes one line of results."""
    sys.stdout.write(line + "\n")


def score_line(name: str, score: Score) -> str:
    return (
        f"{name:<15} P {score.precision:.3f}  R {score.recall:.3f}  F1 {score.f1:.3f}"
        f"  (tp {score.true_positives}, predicted {score.predicted}, expected {score.expected})"
    )


def print_quality(report: Report) -> None:
    say(f"labelled set: {len(CASES)} texts, {report.overall.expected} entities")
    say(score_line("overall", report.overall))
    say(score_line("any category", report.any_category))
    for category, score in report.by_category.items():
        say(score_line(f"  {category}", score))
    for split, cases in SPLITS.items():
        split_report = evaluate_cases(cases)
        say(score_line(split, split_report.overall))
        say(score_line("  any category", split_report.any_category))


def print_errors() -> None:
    """Lists every text whose extraction differs from its labels."""
    predictions = extract_many([text for text, _ in CASES])
    for (text, labels), entities in zip(CASES, predictions, strict=True):
        got, want = predicted_pairs(entities), expected_pairs(labels)
        if got != want:
            say(f"{text}\n    extra {sorted(got - want)}\n    missed {sorted(want - got)}")


def measure_throughput(count: int, batch_size: int, repeat: int) -> None:
    texts = [CASES[i % len(CASES)][0] for i in range(count)]
    extract_many(texts[:200], batch_size=batch_size)  # warm-up: model load and first batches
    rates = []
    for _ in range(repeat):
        started = time.perf_counter()
        extract_many(texts, batch_size=batch_size)
        rates.append(count / (time.perf_counter() - started))
    say(
        f"throughput: {max(rates):,.0f} sentences/s best of {repeat} "
        f"({count} texts, batch {batch_size}; runs: {', '.join(f'{r:,.0f}' for r in rates)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--errors", action="store_true", help="list every mislabelled text")
    args = parser.parse_args()
    print_quality(evaluate_cases())
    if args.errors:
        print_errors()
    measure_throughput(args.texts, args.batch_size, args.repeat)


if __name__ == "__main__":
    main()
