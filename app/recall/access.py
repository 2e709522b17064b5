"""Access reinforcement, written in batches off the request path.

A recall only records ids in memory (no I/O); a background task flushes them every
`interval_s` in one Cypher query (app/storage/graph/access.py): `last_accessed`, `access_count`,
and a TTL reset (`expires_at = now + ttl_days` for memories that have a TTL and are not pinned).
Counts recorded in the last interval are lost if the process is killed: reinforcement is a hint,
not data.

Only live memories are reinforced: a memory that is archived or already past its `expires_at`
(shown by `include_decayed=true` or `state_mode=history`) is left as it is, so that being looked
at never brings it back. A renewed `expires_at` is written to the vector payload as well, so the
index's time filters and the sync check agree with the graph.
"""

import asyncio
import contextlib
import logging
from collections import Counter
from datetime import timedelta

from app.errors import StoreUnavailable
from app.models import to_iso, utc_now
from app.storage.graph import access as store
from app.storage.graph.store import GraphStore
from app.storage.vectors import VectorIndex

log = logging.getLogger(__name__)


class AccessRecorder:
    """Collects recalled ids; `run()` flushes them periodically."""

    def __init__(
        self, graph: GraphStore, vectors: VectorIndex | None = None, interval_s: float = 2.0
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.interval_s = interval_s
        self._pending: Counter[tuple[str, str]] = Counter()

    def record(self, user_id: str, memory_ids: list[str]) -> None:
        """Remembers that these memories were just returned (no I/O)."""
        self._pending.update((user_id, memory_id) for memory_id in memory_ids)

    async def flush(self) -> int:
        """Writes what was recorded; returns how many memories were reinforced."""
        if not self._pending:
            return 0
        batch, self._pending = self._pending, Counter()
        rows = [{"user_id": u, "id": i, "n": n} for (u, i), n in batch.items()]
        now = utc_now()
        stamp = to_iso(now)
        live = await store.live(self.graph, rows, stamp)
        rows = [row for row in rows if row["id"] in live]
        for row in rows:
            ttl = live[row["id"]]
            row["expires_at"] = to_iso(now + timedelta(days=ttl)) if ttl else None
        if not rows:
            return 0
        renewed = await store.reinforce(self.graph, rows, stamp)
        await self._mirror([(memory_id, expires) for memory_id, expires in renewed if memory_id])
        return len(rows)

    async def _mirror(self, renewed: list[tuple[str, str]]) -> None:
        """The new expires_at into the vector payloads, the one field reinforcement changes
        there: one update per distinct value (the memories of one TTL share it), not a payload
        rewrite per memory. A failure is left to the sync job."""
        if self.vectors is None or not renewed:
            return
        by_value: dict[str, list[str]] = {}
        for memory_id, expires_at in renewed:
            by_value.setdefault(expires_at, []).append(memory_id)
        for expires_at, ids in by_value.items():
            try:
                await self.vectors.set_payload_fields(ids, {"expires_at": expires_at})
            except Exception:  # the index is down: the sync job repairs the payloads
                log.warning(
                    "vector payloads of %d memories not updated after reinforcement", len(ids)
                )

    async def run(self) -> None:
        """Flushes every interval until cancelled; flushes once more on the way out."""
        try:
            while True:
                await asyncio.sleep(self.interval_s)
                try:
                    await self.flush()
                except StoreUnavailable as exc:  # the store watch logs the outage itself
                    log.warning("access reinforcement counts dropped: %s", exc)
                except Exception:  # anything else: these counts are dropped, and logged
                    log.exception("access reinforcement flush failed")
        finally:
            with contextlib.suppress(Exception):
                await self.flush()
