"""Prometheus metrics recorded while Engram works (requests, recall steps, embedder calls).

Figures read at scrape time (job queues, stores, counts, the LLM's counters) are collected by
`app.ops.metrics_router`. Names start with `engram_`; durations are in seconds.
"""

from collections.abc import Mapping

from prometheus_client import Counter, Histogram

# From sub-millisecond reads to slow LLM-backed calls.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

HTTP_REQUESTS = Counter(
    "engram_http_requests",
    "HTTP requests by route template, method and status.",
    ["route", "method", "status"],
)
HTTP_LATENCY = Histogram(
    "engram_http_request_duration_seconds",
    "HTTP request latency by route template and method.",
    ["route", "method"],
    buckets=BUCKETS,
)
RECALL_STEP = Histogram(
    "engram_recall_step_duration_seconds",
    "Recall's steps: embed (the query's vector), search (dense and keyword), graph (the read).",
    ["step"],
    buckets=BUCKETS,
)
EMBED_LATENCY = Histogram(
    "engram_embedder_call_duration_seconds",
    "Embedder calls by embedder.",
    ["embedder"],
    buckets=BUCKETS,
)
EMBED_ERRORS = Counter("engram_embedder_errors", "Failed embedder calls.", ["embedder"])
LLM_LATENCY = Histogram(
    "engram_llm_call_duration_seconds",
    "LLM calls (with their retries), by outcome.",
    ["outcome"],
    buckets=BUCKETS,
)


def observe_recall_steps(timings_ms: Mapping[str, float]) -> None:
    for step, milliseconds in timings_ms.items():
        RECALL_STEP.labels(step).observe(milliseconds / 1000)
