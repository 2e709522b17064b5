"""GET /metrics: what Engram records as it works and what each scrape reads, in Prometheus's
text format."""

import asyncio
import json
import re
import uuid
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.embeddings.base import EmbeddingError, HealthTracker, tracked
from app.metrics import EMBED_ERRORS, EMBED_LATENCY
from tests.conftest import ALICE_KEY, auth, running_client, test_settings


async def scrape(client: httpx.AsyncClient) -> dict[tuple[str, tuple], float]:
    answered = await client.get("/metrics")
    assert answered.status_code == 200
    assert answered.headers["content-type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(answered.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_requests_are_counted_by_route_template_and_status(app_client: httpx.AsyncClient):
    before = await scrape(app_client)
    missing = f"/memory/{uuid.uuid4()}"
    for _ in range(3):
        assert (await app_client.get(missing, headers=auth(ALICE_KEY))).status_code == 404
    await app_client.get("/no/such/path")
    after = await scrape(app_client)
    route = {"route": "/memory/{memory_id}", "method": "GET"}
    assert (
        value(after, "engram_http_requests_total", **route, status="404")
        - value(before, "engram_http_requests_total", **route, status="404")
        == 3
    )
    count = "engram_http_request_duration_seconds_count"
    assert value(after, count, **route) - value(before, count, **route) == 3
    unmatched = {"route": "unmatched", "method": "GET", "status": "404"}
    assert value(after, "engram_http_requests_total", **unmatched) >= 1
    assert not any(missing in str(labels) for _, labels in after)  # ids never become labels


async def test_recall_steps_are_timed(app_client: httpx.AsyncClient):
    stored = await app_client.post(
        "/memory", json={"content": "Metrics like histograms"}, headers=auth(ALICE_KEY)
    )
    assert stored.status_code == 201
    before = await scrape(app_client)
    answered = await app_client.get(
        "/recall", params={"query": "histograms"}, headers=auth(ALICE_KEY)
    )
    steps = answered.json()["timings_ms"]
    assert {"embed", "search", "graph"} <= set(steps)
    after = await scrape(app_client)
    for step in ("embed", "search", "graph"):
        name = "engram_recall_step_duration_seconds_count"
        assert value(after, name, step=step) - value(before, name, step=step) == 1


async def test_a_scrape_reads_queues_stores_and_counts(app_client: httpx.AsyncClient):
    await app_client.post("/memory", json={"content": "Counted"}, headers=auth(ALICE_KEY))
    samples = await scrape(app_client)
    assert value(samples, "engram_store_up", store="falkordb") == 1
    assert value(samples, "engram_store_up", store="qdrant") == 1
    assert value(samples, "engram_store_state", store="falkordb", state="connected") == 1
    assert value(samples, "engram_embedder_state", state="ok") == 1
    assert value(samples, "engram_memories") >= 1
    # Nothing runs jobs in this app (workers=0): the embed job of the write waits.
    assert value(samples, "engram_jobs_pending", kind="embed") >= 1
    assert ("engram_jobs_oldest_pending_age_seconds", (("kind", "embed"),)) in samples
    assert ("engram_jobs_dead", (("kind", "embed"),)) in samples
    assert ("engram_jobs_failed_total", (("kind", "embed"),)) in samples


async def test_embedder_calls_are_timed_and_failures_counted():
    async def works() -> list[float]:
        return [1.0]

    async def fails() -> list[float]:
        raise RuntimeError("model crashed")

    health = HealthTracker()
    timed = EMBED_LATENCY.labels("local")._sum.get(), EMBED_ERRORS.labels("local")._value.get()
    await tracked(health, works(), "local embedding")
    with pytest.raises(EmbeddingError):
        await tracked(health, fails(), "local embedding")
    assert EMBED_ERRORS.labels("local")._value.get() == timed[1] + 1
    assert EMBED_LATENCY.labels("local")._sum.get() > timed[0]


async def test_metrics_can_be_switched_off(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, metrics_enabled=False)
    async with running_client(settings) as client:
        answered = await client.get("/metrics")
    assert answered.status_code == 404
    assert "ENGRAM_METRICS" in answered.json()["message"]


async def test_the_sample_dashboard_queries_metrics_that_exist(app_client: httpx.AsyncClient):
    root = Path(__file__).resolve().parents[2]
    dashboard = json.loads((root / "deploy/grafana/engram-dashboard.json").read_text())
    queried = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"engram_[a-z_]+", target["expr"])
    }
    exposed = (await app_client.get("/metrics")).text
    families = set(re.findall(r"^# TYPE (engram_[a-z_]+) ", exposed, flags=re.M))
    suffixes = re.compile(r"_(bucket|count|sum|total)$")
    missing = [
        n for n in sorted(queried) if n not in families and suffixes.sub("", n) not in families
    ]
    assert missing == []


async def test_mcp_requests_are_labelled_with_their_route(app_client: httpx.AsyncClient):
    before = await scrape(app_client)
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = {"Accept": "application/json, text/event-stream"}
    answered = await app_client.post("/mcp", json=ping, headers=auth(ALICE_KEY) | accept)
    assert answered.status_code == 200
    assert (await app_client.post("/mcp", json=ping, headers=accept)).status_code == 401
    after = await scrape(app_client)
    total = "engram_http_requests_total"
    for status in ("200", "401"):
        route = {"route": "/mcp", "method": "POST", "status": status}
        assert value(after, total, **route) - value(before, total, **route) == 1


async def test_remember_jobs_are_timed_in_a_histogram(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, workers=1)
    async with running_client(settings) as client:
        before = await scrape(client)
        turns = [{"role": "user", "content": "I live in Lisbon and I prefer green tea."}]
        accepted = await client.post(
            "/remember", json={"messages": turns, "session_id": "s1"}, headers=auth(ALICE_KEY)
        )
        assert accepted.status_code == 202
        job_path = f"/remember/jobs/{accepted.json()['job_id']}"
        for _ in range(300):
            job = (await client.get(job_path, headers=auth(ALICE_KEY))).json()
            if job["state"] == "done":
                break
            await asyncio.sleep(0.1)
        assert job["state"] == "done", job
        after = await scrape(client)
    name = "engram_job_duration_seconds"
    added = lambda suffix, **labels: (  # noqa: E731
        value(after, f"{name}_{suffix}", kind="remember", **labels)
        - value(before, f"{name}_{suffix}", kind="remember", **labels)
    )
    assert added("count") == 1 and 0 < added("sum") < 600
    assert added("bucket", le="+Inf") == 1 and added("bucket", le="1800.0") == 1
    assert (name + "_count", (("kind", "embed"),)) in after  # every kind has one
