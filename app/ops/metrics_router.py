"""GET /metrics: Prometheus's text format. What Engram records as it works (app.metrics), plus
what is read at each scrape: job queues, stores, the embedder, the LLM's counters, counts.

Job figures come from the shared queue, so every API replica reports the same values: use
max() rather than sum() across replicas for them.
"""

import asyncio
import logging
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from app.deps import EmbedderDep, JobsDep, LLMDep, SettingsDep, StoresDep
from app.embeddings import Embedder
from app.errors import NotFound
from app.jobs.queue import JobQueue
from app.llm import LLMClient
from app.storage import Stores

router = APIRouter(tags=["operations"])
log = logging.getLogger(__name__)
T = TypeVar("T")

JOB_GAUGES = {
    "pending": "Jobs waiting for a worker.",
    "scheduled": "Jobs waiting for a retry.",
    "in_flight": "Jobs running now.",
    "dead": "Jobs that gave up (dead letters).",
}
JOB_COUNTERS = {"done": "Jobs finished.", "failed": "Job attempts that failed."}
STATES = ("connected", "degraded", "disconnected")


@dataclass
class Snapshot:
    """What one scrape read; None where the read failed."""

    jobs: dict[str, dict[str, Any]] | None = None
    job_durations: dict[str, dict[str, Any]] | None = None
    stores: dict[str, str] = field(default_factory=dict)
    embedder: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] | None = None
    memories: int | None = None
    vectors: int | None = None


class SnapshotCollector(Collector):
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        yield from _jobs(self.snapshot.jobs)
        yield from _job_durations(self.snapshot.job_durations)
        yield from _stores(self.snapshot)
        yield from _llm(self.snapshot.llm)
        for name, value, text in (
            ("engram_memories", self.snapshot.memories, "Live memories in the graph."),
            ("engram_vectors", self.snapshot.vectors, "Points in the vector index."),
        ):
            if value is not None:
                yield GaugeMetricFamily(name, text, value=value)


def _jobs(jobs: dict[str, dict[str, Any]] | None) -> Iterator[Metric]:
    if jobs is None:
        return
    for name, text in JOB_GAUGES.items():
        gauge = GaugeMetricFamily(f"engram_jobs_{name}", text, labels=["kind"])
        for kind, stats in jobs.items():
            gauge.add_metric([kind], stats[name])
        yield gauge
    for name, text in JOB_COUNTERS.items():
        counter = CounterMetricFamily(f"engram_jobs_{name}", text, labels=["kind"])
        for kind, stats in jobs.items():
            counter.add_metric([kind], stats[name])
        yield counter
    age = GaugeMetricFamily(
        "engram_jobs_oldest_pending_age_seconds", "Age of the oldest waiting job.", labels=["kind"]
    )
    for kind, stats in jobs.items():
        age.add_metric([kind], stats["oldest_pending_age_s"] or 0.0)
    yield age


def _job_durations(durations: dict[str, dict[str, Any]] | None) -> Iterator[Metric]:
    """How long successful job attempts took, per kind (`kind="remember"`: /remember's
    extraction, from the job's start to its result)."""
    if durations is None:
        return
    histogram = HistogramMetricFamily(
        "engram_job_duration_seconds",
        "Time of successful job attempts, by kind (all processes: kept in the queue's Redis).",
        labels=["kind"],
    )
    for kind, figures in durations.items():
        histogram.add_metric([kind], figures["buckets"], figures["sum"])
    yield histogram


def _stores(snapshot: Snapshot) -> Iterator[Metric]:
    up = GaugeMetricFamily("engram_store_up", "1 if the store answers.", labels=["store"])
    state = GaugeMetricFamily(
        "engram_store_state", "1 for the store's current state.", labels=["store", "state"]
    )
    for store, current in snapshot.stores.items():
        up.add_metric([store], float(current != "disconnected"))
        for name in STATES:
            state.add_metric([store, name], float(current == name))
    yield up
    yield state
    if snapshot.embedder:
        embedder = GaugeMetricFamily(
            "engram_embedder_state", "1 for the embedder's current state.", labels=["state"]
        )
        for name in ("ok", "degraded", "down"):
            embedder.add_metric([name], float(snapshot.embedder.get("state") == name))
        yield embedder


def _llm(status: dict[str, Any] | None) -> Iterator[Metric]:
    """The LLM's call counters (all 0 when no LLM is configured)."""
    for name in ("calls", "successes", "failures", "refused", "retries"):
        count = status[name] if status is not None else 0
        yield CounterMetricFamily(f"engram_llm_{name}", f"LLM calls: {name}.", value=count)


async def _quietly(work: Awaitable[T], what: str) -> T | None:
    """A scrape still answers when a store is down; the figure is then left out."""
    try:
        return await work
    except Exception as exc:
        log.warning("metrics: could not read %s: %s", what, exc)
        return None


async def read_snapshot(
    stores: Stores, embedder: Embedder, llm: LLMClient | None, jobs: JobQueue
) -> Snapshot:
    graph_up, vectors_up = await asyncio.gather(stores.graph.ping(), stores.vectors.health())
    snapshot = Snapshot(
        stores={
            "falkordb": _state(stores, "falkordb", graph_up),
            "qdrant": _state(stores, "qdrant", vectors_up),
        },
        embedder=embedder.health(),
        llm=llm.status() if llm is not None else None,
    )
    if graph_up:
        snapshot.jobs = await _quietly(jobs.stats(), "job queues")
        snapshot.job_durations = await _quietly(jobs.durations(), "job durations")
        snapshot.memories = await _quietly(stores.graph.count_memories(None), "memory count")
    if vectors_up:
        snapshot.vectors = await _quietly(stores.vectors.count(None), "vector count")
    return snapshot


def _state(stores: Stores, component: str, reachable: bool) -> str:
    if not reachable:
        return "disconnected"
    return "connected" if stores.health.get(component).ok else "degraded"


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {
            "content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}},
            "description": "Prometheus text format.",
        }
    },
)
async def metrics(
    settings: SettingsDep,
    stores: StoresDep,
    embedder: EmbedderDep,
    llm: LLMDep,
    jobs: JobsDep,
) -> Response:
    """Prometheus metrics: requests, latencies (per route, per recall step, embedder and LLM
    calls), job queues, stores, counts. No key needed; no memory content or user ids."""
    if not settings.metrics_enabled:
        raise NotFound("Metrics are switched off (ENGRAM_METRICS=false)")
    scraped = CollectorRegistry(auto_describe=False)
    scraped.register(SnapshotCollector(await read_snapshot(stores, embedder, llm, jobs)))
    body = generate_latest(REGISTRY) + generate_latest(scraped)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
