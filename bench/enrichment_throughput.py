"""Background pipeline throughput on the embedded default: embedding + enrichment, then
enrichment alone.

Starts `python -m app` (local embedder, in-process workers: the defaults) in a temporary data
dir, stores N textgen memories through POST /memory/batch and times (a) the pipeline, from the
first write until every memory has `enrichment_status == "done"` (the embed job queues the
enrich job), then (b) enrichment alone: POST /enrichment/reprocess queues forced enrichment of
all of them, timed until the `enrich` kind is drained and its `done` counter grew by the number
of jobs queued. Progress comes from GET /enrichment/status (admin key). The graph's SIMILAR_TO,
PRECEDED_BY, EXEMPLIFIES and MENTIONS edges and Entity nodes are counted directly in FalkorDB.
The machine may be shared: each figure carries the 1-minute load average at its end.

Usage: .venv/bin/python bench/enrichment_throughput.py [--memories 1000]
"""

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from app.storage.graph.store import GraphStore
from bench._engram import dead_letters, keyed_engram, load_average
from bench.textgen import memories, personas

ROOT = Path(__file__).resolve().parents[1]

USER_KEY = "bench-user-key-enrichment-0001"
ADMIN_KEY = "bench-admin-key-enrichment-0001"
BATCH = 500  # POST /memory/batch's limit
WARM_UP = 10  # loads spaCy (entity extraction) before the clock starts
POLL_S = 0.2
GRAPH_COUNTS = {
    "SIMILAR_TO edges": "MATCH (:Memory)-[r:SIMILAR_TO]->(:Memory) RETURN count(r)",
    "PRECEDED_BY edges": "MATCH (:Memory)-[r:PRECEDED_BY]->(:Memory) RETURN count(r)",
    "EXEMPLIFIES edges": "MATCH (:Memory)-[r:EXEMPLIFIES]->(:Pattern) RETURN count(r)",
    "MENTIONS edges": "MATCH (:Memory)-[r:MENTIONS]->(:Entity) RETURN count(r)",
    "Entity nodes": "MATCH (e:Entity) RETURN count(e)",
}


def client(base: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=120)


def status(admin: httpx.Client) -> dict[str, Any]:
    return admin.get("/enrichment/status").raise_for_status().json()


def active(kind: dict[str, int]) -> int:
    """Jobs of a kind not finished yet: waiting, waiting for a retry, or running."""
    return kind["pending"] + kind["scheduled"] + kind["in_flight"]


def store_all(user: httpx.Client, bodies: list[dict[str, Any]]) -> None:
    for start in range(0, len(bodies), BATCH):
        response = user.post("/memory/batch", json={"memories": bodies[start : start + BATCH]})
        assert response.status_code == 201, response.text


def wait_enriched(admin: httpx.Client, total: int, timeout: float) -> dict[str, Any]:
    """Polls until `total` memories are enriched (or failed with nothing left to run); returns
    the last status and when the embed kind was first drained (seconds from the call)."""
    started, embed_drained = time.perf_counter(), None
    while True:
        now, current = time.perf_counter(), status(admin)
        counts, jobs = current["enrichment"]["memories"], current["jobs"]
        if embed_drained is None and not active(jobs["embed"]):
            embed_drained = now - started
        finished = counts.get("done", 0) + counts.get("failed", 0)
        if counts.get("done", 0) >= total or (finished >= total and not active(jobs["enrich"])):
            return {"status": current, "embed_drained_s": embed_drained}
        if now - started > timeout:
            raise TimeoutError(f"not enriched after {timeout:.0f} s: {counts}")
        time.sleep(POLL_S)


def wait_enrich_jobs(admin: httpx.Client, done_target: int, timeout: float) -> dict[str, Any]:
    """Polls until the enrich kind is drained and its done counter reached `done_target`."""
    started = time.perf_counter()
    while True:
        current = status(admin)
        enrich = current["jobs"]["enrich"]
        if not active(enrich) and enrich["done"] + enrich["dead"] >= done_target:
            return current
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"enrich jobs not drained after {timeout:.0f} s: {enrich}")
        time.sleep(POLL_S)


def warm_up(user: httpx.Client, admin: httpx.Client) -> None:
    store_all(user, [m.body() for m in memories(personas(10), WARM_UP, seed=99)])
    wait_enriched(admin, WARM_UP, timeout=120)


def measure_pipeline(user: httpx.Client, admin: httpx.Client, n: int) -> dict[str, Any]:
    """(a) First write → every memory enriched (embedding and enrichment chained)."""
    bodies = [m.body() for m in memories(personas(10), n)]
    started = time.perf_counter()
    store_all(user, bodies)
    stored_s = time.perf_counter() - started
    waited = wait_enriched(admin, WARM_UP + n, timeout=max(600.0, 2.0 * n))
    seconds = time.perf_counter() - started
    embed_s = stored_s + waited["embed_drained_s"]
    return {
        "memories": n,
        "seconds": round(seconds, 2),
        "memories_per_s": round(n / seconds, 1),
        "load_1m_at_end": load_average(),
        "batch writes done after s": round(stored_s, 2),
        "embed jobs drained after s": round(embed_s, 2),
        "enrichment_status counts": waited["status"]["enrichment"]["memories"],
    }


def measure_reprocess(admin: httpx.Client, total: int) -> dict[str, Any]:
    """(b) Forced re-enrichment of every memory of the user: enrichment alone."""
    done_before = status(admin)["jobs"]["enrich"]["done"]
    started = time.perf_counter()
    response = admin.post("/enrichment/reprocess", json={"user_id": "bench", "limit": total})
    assert response.status_code == 202, response.text
    queued = response.json()
    after = wait_enrich_jobs(admin, done_before + len(queued["job_ids"]), max(600.0, 2.0 * total))
    seconds = time.perf_counter() - started
    return {
        "memories": queued["count"],
        "jobs": len(queued["job_ids"]),
        "seconds": round(seconds, 2),
        "memories_per_s": round(queued["count"] / seconds, 1),
        "load_1m_at_end": load_average(),
        "enrich jobs done (delta)": after["jobs"]["enrich"]["done"] - done_before,
    }


async def graph_counts(falkor_port: int) -> dict[str, int]:
    """Edge and node counts straight from FalkorDB (no HTTP endpoint lists them all)."""
    graph = GraphStore(f"redis://127.0.0.1:{falkor_port}", "engram")
    try:
        return {name: (await graph.ro_query(cypher))[0][0] for name, cypher in GRAPH_COUNTS.items()}
    finally:
        await graph.close()


def job_counters(admin: httpx.Client) -> dict[str, dict[str, int]]:
    wanted = ("pending", "scheduled", "in_flight", "done", "failed", "dead")
    return {kind: {k: v[k] for k in wanted} for kind, v in status(admin)["jobs"].items()}


def run(n: int) -> dict[str, Any]:
    load_before = load_average()
    with (
        keyed_engram(USER_KEY, ADMIN_KEY) as server,
        client(server.base, USER_KEY) as user,
        client(server.base, ADMIN_KEY) as admin,
    ):
        warm_up(user, admin)
        pipeline = measure_pipeline(user, admin, n)
        graph_after_pipeline = asyncio.run(graph_counts(server.falkor_port))
        reprocess = measure_reprocess(admin, WARM_UP + n)
        graph_after_reprocess = asyncio.run(graph_counts(server.falkor_port))
        entities = user.get("/entities", params={"limit": 500}).raise_for_status().json()["count"]
        return {
            "memories": n,
            "warm_up_memories (not timed)": WARM_UP,
            "cpus": os.cpu_count(),
            "load_1m_before_start": load_before,
            "(a) pipeline: embed + enrich": pipeline,
            "(b) enrichment alone: forced reprocess": reprocess,
            "graph after (a)": graph_after_pipeline,
            "graph after (b)": graph_after_reprocess,
            "GET /entities?limit=500 count (capped at 500)": entities,
            "jobs": job_counters(admin),
            "dead_letters": dead_letters(admin),
        }


def table(result: dict[str, Any]) -> str:
    a, b = result["(a) pipeline: embed + enrich"], result["(b) enrichment alone: forced reprocess"]
    rows = [
        f"{result['memories']} memories, {result['cpus']} cpus, "
        f"load {result['load_1m_before_start']} before start",
        f"{'phase':<34}{'memories':>9}{'seconds':>9}{'mem/s':>8}{'load 1m':>9}",
        f"{'(a) pipeline: embed + enrich':<34}{a['memories']:>9}{a['seconds']:>9}"
        f"{a['memories_per_s']:>8}{a['load_1m_at_end']:>9}",
        f"{'(b) enrichment alone (reprocess)':<34}{b['memories']:>9}{b['seconds']:>9}"
        f"{b['memories_per_s']:>8}{b['load_1m_at_end']:>9}",
        f"(a) batch writes done after {a['batch writes done after s']} s, "
        f"embed jobs drained after {a['embed jobs drained after s']} s",
        f"graph after (a): {result['graph after (a)']}",
        f"graph after (b): {result['graph after (b)']}",
        f"dead jobs: {len(result['dead_letters'])}",
    ]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    args = parser.parse_args()
    if not 1 <= args.memories <= 10_000 - WARM_UP:  # reprocess queues at most 10,000
        raise SystemExit("--memories must be between 1 and 9990")
    result = run(args.memories)
    sys.stdout.write(table(result) + "\n")
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "enrichment_throughput.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
