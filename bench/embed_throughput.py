"""Local embedder figures: cold start, throughput on ~1,000 short sentences, query latency.

Usage: .venv/bin/python bench/embed_throughput.py [--texts N] [--batch-size N] [--threads N]
"""

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import time

from app.embeddings import LocalEmbedder

SUBJECTS = ["I", "My sister", "The team", "Our landlord", "My doctor", "The new intern", "Alex"]
VERBS = ["prefers", "forgot", "asked about", "booked", "cancelled", "is worried about", "loves"]
OBJECTS = [
    "the flight to Lisbon next Tuesday",
    "oat milk in the morning coffee",
    "the quarterly budget review",
    "a table for four at the Italian place",
    "the dentist appointment",
    "dark mode in every editor",
    "the server migration this weekend",
    "running before work",
]
TAILS = ["", " again", " last week", " because it was cheaper", " and wants a reminder"]


def sentences(count: int) -> list[str]:
    """`count` distinct short conversational sentences."""
    combos = itertools.product(SUBJECTS, VERBS, OBJECTS, TAILS)
    texts = [f"{s} {v} {o}{t}." for s, v, o, t in combos]
    if count > len(texts):
        raise SystemExit(f"at most {len(texts)} texts")
    return texts[:count]


def say(line: str) -> None:
    """Writes one line of results."""
    sys.stdout.write(line + "\n")


async def measure(count: int, batch_size: int, threads: int, repeat: int) -> None:
    """Runs the measurements and prints them."""
    texts = sentences(count)
    embedder = LocalEmbedder(batch_size=batch_size, threads=threads)
    started = time.perf_counter()
    await embedder.warm_up()
    say(f"cold start (verify + load + first run): {time.perf_counter() - started:.2f} s")

    rates = []
    for _ in range(repeat):
        started = time.perf_counter()
        await embedder.embed(texts)
        rates.append(len(texts) / (time.perf_counter() - started))
    say(
        f"throughput: {len(texts)} texts, batch size {batch_size}, {threads} threads:"
        f" median {statistics.median(rates):.0f} texts/s, best {max(rates):.0f} ({repeat} runs)"
    )

    latencies = []
    for text in texts[:200]:
        started = time.perf_counter()
        await embedder.embed_query(text)
        latencies.append((time.perf_counter() - started) * 1000)
    p95 = statistics.quantiles(latencies, n=20)[-1]
    say(f"single query: p50 {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms (200 queries)")
    await embedder.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    say(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} at start")
    asyncio.run(measure(args.texts, args.batch_size, args.threads, args.repeat))


if __name__ == "__main__":
    main()
