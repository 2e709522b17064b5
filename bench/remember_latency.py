"""Acknowledgement latency of POST /remember (202) on the embedded default, over real HTTP.

Starts `python -m app` twice in a temporary data dir. Each run posts N /remember calls (a user
turn in the first person and an assistant reply, drawn from textgen's vocabularies, session ids
cycling over 50 sessions) sequentially from one keep-alive client, and reports p50/p95/p99 of
the 202 (target: p95 ≤ 10 ms). Run 1 keeps the in-process workers on, as in production: the
rule-based extraction (no LLM) and the embedding/enrichment of what it stores compete for the
cores meanwhile; afterwards the `remember` kind is drained and extraction throughput reported.
Run 2 sets ENGRAM_WORKERS=0, so the acknowledgement path is measured alone.
The machine may be shared: each figure carries the 1-minute load average at its end.

Usage: .venv/bin/python bench/remember_latency.py [--requests 1000]
"""

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench import textgen as tg
from bench._engram import dead_letters, keyed_engram, load_average, percentiles

ROOT = Path(__file__).resolve().parents[1]

USER_KEY = "bench-user-key-remember-0001"
ADMIN_KEY = "bench-admin-key-remember-0001"
SESSIONS = 50
WARM_UP = 20  # loads spaCy in the workers and warms the connection before the clock starts
POLL_S = 0.2
NO_RATE_LIMIT = {"REMEMBER_RATE_PER_MINUTE": "100000"}
COUNTERS = ("pending", "scheduled", "in_flight", "done", "failed", "dead")
RUNS = (
    ("run 1: workers on", "run 1: workers on (production)"),
    ("run 2: workers off", "run 2: ENGRAM_WORKERS=0 (ack alone)"),
)

USER_TURNS = (
    "I moved to {city} last {month}, and I'm still getting used to the neighbourhood.",
    "I prefer {drink} over {drink2}, especially in the {daypart}.",
    "My {relation} {first} works at {company} now, as their new {job}.",
    "I'm allergic to {allergen}, so please keep that in mind when you suggest recipes.",
    "I've been doing {hobby} every {day} for a few months now and I love it.",
    "My favorite dish is {dish}; the {cuisine} place near the office makes the best one.",
    "I work on {project} and we use {datastore} for {purpose}.",
    "I really don't like {ingredient}, please leave it out of any meal plan.",
    "Yesterday I had dinner with {first} at a {cuisine} restaurant in {city}.",
    "I'm flying to {city} next {day} for {conference} and I still need a hotel.",
    "I usually listen to {genre} while {activity}.",
    "My {relation} {first}'s birthday is on {month} {day_num}, remind me a week before.",
    "I bought a new {product} last week, it was about {price} {currency}.",
    "I decided to {decision} starting in {month}.",
    "We switched {project} from {datastore} to {datastore2} because {reason}.",
    "Can you help me write a short note to {first} about {deliverable}?",
    "What's a good way to get better at {hobby} in a few weeks?",
    "I live in {city} with my {pet} {pet_name}.",
)
ASSISTANT_TURNS = (
    "Got it, I'll keep that in mind. Is there anything else you'd like me to note?",
    "Thanks for telling me! Would you like a reminder about it later?",
    "Noted. {city} sounds lovely in {month}; do you want some tips for the area?",
    "Sure, here is a first draft you can adapt: a short greeting, the main point, and a thank-you.",
    "That makes sense. I'll take it into account next time we plan something.",
    "Understood. Should I add this to your notes for {project}?",
    "Good to know! I'll remember that for later.",
    "Okay, I've updated my notes. Let me know if anything changes.",
)
EXTRA_SLOTS = {
    "drink2": tg.DRINKS,
    "datastore2": tg.DATASTORES,
    "allergen": tg.ALLERGENS,
    "ingredient": tg.INGREDIENTS,
    "genre": tg.GENRES,
    "activity": tg.ACTIVITIES,
    "product": tg.PRODUCTS,
    "currency": tg.CURRENCIES,
    "decision": tg.LIFE_DECISIONS,
    "reason": tg.REASONS,
    "deliverable": tg.DELIVERABLES,
    "conference": tg.CONFERENCES,
    "purpose": tg.PURPOSES,
    "pet": tg.PET_SPECIES,
    "pet_name": tg.PET_NAMES,
}


def conversation_bodies(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """`count` /remember bodies: one user turn and one assistant reply each, sessions in turn."""
    rng = random.Random(f"remember-{seed}")
    people = tg.personas(10, seed)
    bodies = []
    for number in range(count):
        persona = people[number % len(people)]
        slots = tg.Slots(tg.Draw(rng, persona, tg.timestamp(rng)))
        for name, vocab in EXTRA_SLOTS.items():
            slots[name] = rng.choice(vocab)
        slots["project"] = rng.choice(persona.projects).capitalize()
        slots["price"] = str(rng.randint(20, 2000))
        user_turn = tg.render(rng.choice(USER_TURNS), slots)
        reply = tg.render(rng.choice(ASSISTANT_TURNS), slots)
        bodies.append(
            {
                "session_id": f"bench-session-{number % SESSIONS:02d}",
                "messages": [
                    {"role": "user", "content": user_turn},
                    {"role": "assistant", "content": reply},
                ],
            }
        )
    return bodies


def client(base: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30)


def post_all(user: httpx.Client, bodies: list[dict[str, Any]]) -> tuple[list, list, list]:
    """Posts each body in turn; returns client latencies (ms), server query_time_ms, job ids."""
    latencies, server_ms, job_ids = [], [], []
    for body in bodies:
        started = time.perf_counter()
        response = user.post("/remember", json=body)
        latencies.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 202, response.text
        accepted = response.json()
        server_ms.append(accepted["query_time_ms"])
        job_ids.append(accepted["job_id"])
    return latencies, server_ms, job_ids


def remember_kind(admin: httpx.Client) -> dict[str, int]:
    return admin.get("/enrichment/status").raise_for_status().json()["jobs"]["remember"]


def unfinished(kind: dict[str, int]) -> int:
    return kind["pending"] + kind["scheduled"] + kind["in_flight"]


def wait_drained(admin: httpx.Client, timeout: float) -> dict[str, int]:
    """Polls until no `remember` job is waiting, waiting for a retry or running."""
    deadline = time.perf_counter() + timeout
    while unfinished(kind := remember_kind(admin)):
        if time.perf_counter() > deadline:
            raise TimeoutError(f"remember jobs not drained after {timeout:.0f} s: {kind}")
        time.sleep(POLL_S)
    return kind


def job_outcomes(user: httpx.Client, job_ids: list[str]) -> dict[str, Any]:
    """What the extraction jobs did, summed from GET /remember/jobs/{job_id}."""
    states, extractors, totals = Counter(), Counter(), Counter()
    for job_id in job_ids:
        job = user.get(f"/remember/jobs/{job_id}").raise_for_status().json()
        states[job["state"]] += 1
        result = job.get("result") or {}
        extractors[result.get("extractor", "none")] += 1
        totals["facts extracted"] += result.get("extracted", 0)
        totals["memories stored"] += len(result.get("stored", []))
        totals["duplicates"] += result.get("duplicates", 0)
        totals["superseded"] += len(result.get("superseded", []))
    return {"job states": dict(states), "extractor": dict(extractors), **totals}


def acknowledgement(latencies: list[float], server_ms: list[float]) -> dict[str, Any]:
    client = percentiles(latencies)
    return {
        "client": client,
        "server query_time_ms": percentiles(server_ms),
        "p95 within the 10 ms target": client["p95_ms"] <= 10,
        "load_1m_at_end": load_average(),
    }


def run_with_workers(n: int) -> dict[str, Any]:
    """Run 1: workers on; then drain the extraction backlog and time it."""
    bodies = conversation_bodies(WARM_UP + n)
    with (
        keyed_engram(USER_KEY, ADMIN_KEY, env=NO_RATE_LIMIT) as server,
        client(server.base, USER_KEY) as user,
        client(server.base, ADMIN_KEY) as admin,
    ):
        post_all(user, bodies[:WARM_UP])
        done_before = wait_drained(admin, timeout=300)["done"]
        started = time.perf_counter()
        latencies, server_ms, job_ids = post_all(user, bodies[WARM_UP:])
        posted_s = time.perf_counter() - started
        left_at_end_of_posting = unfinished(remember_kind(admin))
        drained = wait_drained(admin, timeout=max(600.0, 2.0 * n))
        seconds = time.perf_counter() - started
        jobs_done = drained["done"] - done_before
        figures = acknowledgement(latencies, server_ms)
        extraction = {
            "label": "rule-based extractor, no LLM",
            "jobs done": jobs_done,
            "turns": 2 * jobs_done,
            "seconds (first timed post → remember kind drained)": round(seconds, 2),
            "jobs_per_s": round(jobs_done / seconds, 1),
            "turns_per_s": round(2 * jobs_done / seconds, 1),
            "posting took s": round(posted_s, 2),
            "jobs left when posting ended": left_at_end_of_posting,
            "load_1m_at_end": load_average(),
            **job_outcomes(user, job_ids),
        }
        status = admin.get("/enrichment/status").raise_for_status().json()
        return {
            "acknowledgement (202)": figures,
            "extraction throughput": extraction,
            "jobs": {kind: {k: v[k] for k in COUNTERS} for kind, v in status["jobs"].items()},
            "dead_letters": dead_letters(admin),
        }


def run_without_workers(n: int) -> dict[str, Any]:
    """Run 2: ENGRAM_WORKERS=0, nothing runs in the background (the jobs only pile up)."""
    bodies = conversation_bodies(WARM_UP + n)
    with (
        keyed_engram(USER_KEY, ADMIN_KEY, env={**NO_RATE_LIMIT, "ENGRAM_WORKERS": "0"}) as server,
        client(server.base, USER_KEY) as user,
    ):
        post_all(user, bodies[:WARM_UP])
        latencies, server_ms, _ = post_all(user, bodies[WARM_UP:])
        return {"acknowledgement (202)": acknowledgement(latencies, server_ms)}


def table(result: dict[str, Any]) -> str:
    rows = [
        f"{result['requests']} /remember calls, {result['cpus']} cpus, "
        f"load {result['load_1m_before_start']} before start",
        f"{'202 acknowledgement':<36}{'p50':>7}{'p95':>7}{'p99':>7}{'mean':>7}{'load 1m':>9}",
    ]
    for key, label in RUNS:
        ack = result[key]["acknowledgement (202)"]
        c = ack["client"]
        rows.append(
            f"{label:<36}{c['p50_ms']:>7}{c['p95_ms']:>7}{c['p99_ms']:>7}"
            f"{c['mean_ms']:>7}{ack['load_1m_at_end']:>9}"
        )
    x = result["run 1: workers on"]["extraction throughput"]
    rows += [
        f"extraction ({x['label']}): {x['jobs done']} jobs / {x['turns']} turns in "
        f"{x['seconds (first timed post → remember kind drained)']} s = {x['turns_per_s']} turns/s "
        f"(load {x['load_1m_at_end']}); {x['jobs left when posting ended']} jobs left when "
        f"posting ended",
        f"facts extracted {x['facts extracted']}, stored {x['memories stored']}, "
        f"duplicates {x['duplicates']}, job states {x['job states']}",
        f"dead jobs: {len(result['run 1: workers on']['dead_letters'])}",
    ]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    load_before = load_average()
    result = {
        "requests": args.requests,
        "sessions": SESSIONS,
        "warm_up_calls (not timed)": WARM_UP,
        "cpus": os.cpu_count(),
        "load_1m_before_start": load_before,
        "run 1: workers on": run_with_workers(args.requests),
        "run 2: workers off": run_without_workers(args.requests),
    }
    sys.stdout.write(table(result) + "\n")
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "remember_latency.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
