"""Recall's graph read in two parts: what the keyword channel found is read while the query is
still being embedded and searched by meaning, and only the rest once every channel has answered.

BM25 answers in ≈ 2.5 ms, the query's embedding and the dense search that waits for it take
≈ 9; FalkorDB is idle meanwhile. Reading the best keyword matches (and the session turns next to
the best of them) in that gap leaves the read after the channels only the candidates the dense
channel alone found, and the neighbours of seeds the keywords did not foresee.
"""

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from app.scope import Scope
from app.storage.graph import GraphStore, RecallCandidates


@dataclass
class _Prefetch:
    ids: set[str]
    seeds: set[str]
    task: asyncio.Task[RecallCandidates]


@dataclass
class CandidateReads:
    """A prefetch started from keyword hits, then one read of whatever it did not cover."""

    graph: GraphStore
    scope: Scope
    size: int  # how many of the best keyword hits to read ahead (the shortlist's size)
    seeds: int  # how many of them to read the neighbouring turns of (0: no context channel)
    _started: _Prefetch | None = None

    def prefetch(self, hits: Sequence[tuple[str, float]]) -> None:
        """Starts reading the best `size` hits (and the neighbours of the best `seeds`).

        Once per recall: with several queries (`queries`, auto_decompose), the first one's
        keywords are read ahead and the others' with the rest, so a recall of many queries
        still makes at most two reads.
        """
        ids = [memory_id for memory_id, _ in hits[: self.size]]
        if not ids or self._started is not None:
            return
        seeds = ids[: self.seeds]
        task = asyncio.create_task(self.graph.recall_candidates(self.scope, ids, seeds))
        self._started = _Prefetch(set(ids), set(seeds), task)

    async def read(self, ids: Sequence[str], seeds: Sequence[str]) -> RecallCandidates:
        """The same as `graph.recall_candidates(scope, ids, seeds)`, from the prefetch and one
        read of the rest (skipped when the prefetch covered everything)."""
        found = RecallCandidates({}, [], set())
        wanted_seeds, covered, seeded = set(seeds), set[str](), set[str]()
        if (started := self._started) is not None:
            _merge(found, await started.task, wanted_seeds)
            covered, seeded = started.ids, started.seeds
        missing = [i for i in ids if i not in covered]
        unseeded = [s for s in seeds if s not in seeded]
        if missing or unseeded:
            rest = await self.graph.recall_candidates(self.scope, missing, unseeded)
            _merge(found, rest, wanted_seeds)
        return found

    def cancel(self) -> None:
        """Stops a prefetch nobody will read (the recall failed before its graph read)."""
        if self._started is not None:
            self._started.task.cancel()
            # Whatever the task ends with is retrieved, so asyncio never warns about it.
            self._started.task.add_done_callback(_retrieve)


def _retrieve(task: asyncio.Task) -> None:
    if not task.cancelled():
        task.exception()


def _merge(into: RecallCandidates, read: RecallCandidates, seeds: set[str]) -> None:
    """Adds a read's properties and successor flags, and its neighbours of the wanted seeds
    (a prefetched seed that did not end among the best lifts nothing)."""
    into.properties.update(read.properties)
    into.replaced |= read.replaced
    into.neighbours.extend(pair for pair in read.neighbours if pair[0] in seeds)
