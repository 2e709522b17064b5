"""A year of synthetic use through Engram's own relevance and forgetting rules.

Every day a user writes memories of mixed types and importances, and recalls some of them; the
daily forgetting run (app/lifecycle: `relevance` and `decide`, the code the service runs) then
archives what no protection covers and falls below the archive threshold. An archived memory is
hidden, so it is no longer recalled; when a recall would still have wanted it, that is a "miss"
(the cost of forgetting too much). The run shows, per archive threshold, the share of written
memories archived at the end of each month, the misses, and the two promises forgetting keeps:
nothing used in the last 30 days before it was archived, and nothing important (importance at
or above the protection threshold, pinned, protected) is archived.

The synthetic user (fixed seed): WRITES_PER_DAY memories a day; types Context 25 %, Event 20 %,
Fact 20 %, Preference 10 %, and 5 % each of Habit, Pattern, Style, Decision, Insight;
importance low (0.1–0.3) 25 %, normal (0.3–0.6) 60 %, high (0.7–1.0) 15 %; 2 % pinned, 1 %
protected; 0–6 links. Each memory has a popularity drawn from a long-tailed distribution: the
chance it is recalled on a given day is popularity × 0.5^(age / interest half-life), with the
interest half-life of its type (a day's context is wanted for days, a fact for months).

Usage: .venv/bin/python bench/lifecycle_sim.py [--days 365] [--writes-per-day 20]
       [--thresholds 0.05,0.1,0.15,0.2] [--seed 7]
"""

import argparse
import math
import random
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from app.lifecycle.policy import ForgetPolicy, decide
from app.lifecycle.relevance import Facts, RelevanceConfig, relevance
from app.models import to_iso

START = datetime(2026, 1, 1, tzinfo=UTC)
TYPES = [
    ("Context", 25),
    ("Event", 20),
    ("Fact", 20),
    ("Preference", 10),
    ("Habit", 5),
    ("Pattern", 5),
    ("Style", 5),
    ("Decision", 5),
    ("Insight", 5),
]
# How long a memory of each type stays wanted, in days (the half-life of its recall chance).
INTEREST_HALF_LIFE = {
    "Context": 5,
    "Event": 20,
    "Fact": 120,
    "Preference": 120,
    "Habit": 60,
    "Pattern": 90,
    "Style": 120,
    "Decision": 180,
    "Insight": 180,
}
USED_WINDOW_DAYS = 30


@dataclass
class Simulated:
    props: dict
    popularity: float
    links: int
    archived_on: int | None = None
    used_on: list[int] = field(default_factory=list)


def make_memory(rng: random.Random, day: int, index: int) -> Simulated:
    kind = rng.choices([t for t, _ in TYPES], [w for _, w in TYPES])[0]
    band = rng.random()
    if band < 0.25:
        importance = rng.uniform(0.1, 0.3)
    elif band < 0.85:
        importance = rng.uniform(0.3, 0.6)
    else:
        importance = rng.uniform(0.7, 1.0)
    created = to_iso(START + timedelta(days=day, seconds=index))
    props = {
        "id": f"{day:03d}-{index:03d}",
        "type": kind,
        "importance": round(importance, 2),
        "confidence": round(rng.uniform(0.5, 0.95), 2),
        "created_at": created,
        "last_accessed": created,
        "access_count": 0,
        "pinned": rng.random() < 0.02,
        "protected": rng.random() < 0.01,
        "layer": "consolidated",
    }
    popularity = min(0.5, rng.paretovariate(1.5) * 0.01)
    return Simulated(props, popularity, rng.randint(0, 6))


def wanted(memory: Simulated, day: int, rng: random.Random) -> bool:
    """Whether a recall on `day` wants this memory (its latent demand)."""
    age = day - int(memory.props["id"][:3])
    half_life = INTEREST_HALF_LIFE[memory.props["type"]]
    return rng.random() < memory.popularity * math.pow(0.5, age / half_life)


@dataclass
class Outcome:
    threshold: float
    archived_by_month: list[float]
    live_by_month: list[int]
    checkpoints: list[int]  # the day each share was taken
    written: int
    misses: int
    uses: int
    used_recently_archived: int
    important_archived: int


def simulate(args: argparse.Namespace, threshold: float) -> Outcome:
    rng = random.Random(args.seed)
    demand = random.Random(args.seed + 1)
    config = RelevanceConfig()
    policy = ForgetPolicy(archive_below=threshold)
    memories: list[Simulated] = []
    archived_by_month, live_by_month, checkpoints = [], [], []
    misses = uses = used_recently_archived = important_archived = 0
    for day in range(args.days):
        memories += [make_memory(rng, day, i) for i in range(args.writes_per_day)]
        now = START + timedelta(days=day, hours=23)
        for memory in memories:
            if not wanted(memory, day, demand):
                continue
            if memory.archived_on is not None:
                misses += 1
                continue
            uses += 1
            memory.used_on.append(day)
            memory.props["last_accessed"] = to_iso(now - timedelta(hours=1))
            memory.props["access_count"] += 1
        for memory in memories:
            if memory.archived_on is not None:
                continue
            score = relevance(Facts.of(memory.props, memory.links), now, config)
            action, _ = decide(memory.props, score, now, policy)
            if action != "archive":
                continue
            memory.archived_on = day
            if any(day - used < USED_WINDOW_DAYS for used in memory.used_on):
                used_recently_archived += 1
            props = memory.props
            important = props["importance"] >= policy.protect_importance
            if important or props["pinned"] or props["protected"]:
                important_archived += 1
        if (day + 1) % 30 == 0 or day == args.days - 1:
            archived = sum(m.archived_on is not None for m in memories)
            archived_by_month.append(archived / len(memories))
            live_by_month.append(len(memories) - archived)
            checkpoints.append(day + 1)
    return Outcome(
        threshold,
        archived_by_month,
        live_by_month,
        checkpoints,
        len(memories),
        misses,
        uses,
        used_recently_archived,
        important_archived,
    )


def report(outcomes: list[Outcome]) -> str:
    months = len(outcomes[0].archived_by_month)
    head = "| threshold | " + " | ".join(f"day {d}" for d in outcomes[0].checkpoints) + " |"
    lines = [
        "Share of the memories written so far that are archived, every 30 days:",
        "",
        head,
        "|---" * (months + 1) + "|",
    ]
    for o in outcomes:
        shares = " | ".join(f"{share:.0%}" for share in o.archived_by_month)
        lines.append(f"| {o.threshold:g} | {shares} |")
    lines += [
        "",
        "| threshold | written | live at the end | recalls served | misses "
        "(wanted, but archived) | archived though used < 30 d before | important archived |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        miss_share = o.misses / max(o.uses + o.misses, 1)
        lines.append(
            f"| {o.threshold:g} | {o.written} | {o.live_by_month[-1]} | {o.uses} | "
            f"{o.misses} ({miss_share:.1%}) | {o.used_recently_archived} | "
            f"{o.important_archived} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--writes-per-day", type=int, default=20)
    parser.add_argument("--thresholds", default="0.05,0.1,0.15,0.2")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    thresholds = [float(t) for t in args.thresholds.split(",")]
    sys.stdout.write(report([simulate(args, t) for t in thresholds]) + "\n")


if __name__ == "__main__":
    main()
