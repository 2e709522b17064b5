"""The steps of a recall as `timings_ms` names them: every part of the server's time has a name,
so a slow recall shows where it went (bench/concurrency.py sums them against query_time_ms).

Steps that run one after the other add up to query_time_ms, up to scheduling; a step is
charged its wall time, so time spent waiting for another request's work on the event loop
shows in the step that waited.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager

# The names, in the order a recall runs them (documented in docs/recall.md, Timings).
TIER = "tier"  # the user's Personal Intelligence switch and the session's MemoryLess flag
PREPARE = "prepare"  # the query without the names it mentions, its keyword terms
EMBED = "embed"  # the query's embedding
SEARCH = "search"  # the dense and keyword index searches, one request
SECOND_PASS = "second_pass"  # the feedback (prf) and window searches, run together
FUSE = "fuse"  # fusing each query's channels and merging the queries
GRAPH = "graph"  # the shortlist's read (properties, neighbouring turns, successors)
STATE = "state"  # the state rule: which are current, and the heads of replaced ones
EVIDENCE = "evidence"  # each candidate's similarity, shared terms and attribute
SCORE = "score"  # scoring, the floor and the gate, the order
EXPANSION = "expansion"  # relation and entity expansions
PRIORITY = "priority"  # priority_ids put first
AS_OF = "as_of"  # an as_of recall: the memories as they were then (no search)
BROWSE = "browse"  # a recall without a query: the filtered memories in order (no search)
ARTIFACTS = "artifacts"  # include_artifacts: the chunks of text artifacts (only when asked)
RESPOND = "respond"  # the response's body (its JSON encoding follows, outside the timings)


def add(timings: dict[str, float], step: str, elapsed_ms: float) -> None:
    """Adds `elapsed_ms` to `step` (rounded to 0.01 ms)."""
    timings[step] = round(timings.get(step, 0.0) + elapsed_ms, 2)


@contextmanager
def timed(timings: dict[str, float], step: str) -> Iterator[None]:
    """Charges the block's wall time to `step`."""
    started = time.perf_counter()
    try:
        yield
    finally:
        add(timings, step, (time.perf_counter() - started) * 1000)
