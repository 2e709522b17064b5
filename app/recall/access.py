"""Access reinforcement, written in batches off the request path.

A recall only records ids in memory (no I/O); a background task flushes them every
`interval_s` in one Cypher query: `last_accessed`, `access_count`, and a TTL reset
(`expires_at = now + ttl_days` for memories that have a TTL and are not pinned). Counts recorded
in the last interval are lost if the process is killed: reinforcement is a hint, not data.
"""

import asyncio
import contextlib
import logging
from collections import Counter
from datetime import timedelta

from app.models import to_iso, utc_now
from app.storage.graph import GraphStore

log = logging.getLogger(__name__)

TTLS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user_id
  AND m.ttl_days IS NOT NULL AND NOT coalesce(m.pinned, false)
RETURN m.id, m.ttl_days
"""
REINFORCE = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user_id
SET m.last_accessed = $now, m.access_count = coalesce(m.access_count, 0) + row.n,
    m.expires_at = coalesce(row.expires_at, m.expires_at)
"""


class AccessRecorder:
    """Collects recalled ids; `run()` flushes them periodically."""

    def __init__(self, graph: GraphStore, interval_s: float = 2.0) -> None:
        self.graph = graph
        self.interval_s = interval_s
        self._pending: Counter[tuple[str, str]] = Counter()

    def record(self, user_id: str, memory_ids: list[str]) -> None:
        """Remembers that these memories were just returned (no I/O)."""
        self._pending.update((user_id, memory_id) for memory_id in memory_ids)

    async def flush(self) -> int:
        """Writes what was recorded; returns how many memories were touched."""
        if not self._pending:
            return 0
        batch, self._pending = self._pending, Counter()
        rows = [{"user_id": u, "id": i, "n": n} for (u, i), n in batch.items()]
        now = utc_now()
        ttls = dict(await self.graph.ro_query(TTLS, {"rows": rows}))
        for row in rows:
            ttl = ttls.get(row["id"])
            row["expires_at"] = to_iso(now + timedelta(days=ttl)) if ttl else None
        await self.graph.query(REINFORCE, {"rows": rows, "now": to_iso(now)})
        return len(rows)

    async def run(self) -> None:
        """Flushes every interval until cancelled; flushes once more on the way out."""
        try:
            while True:
                await asyncio.sleep(self.interval_s)
                try:
                    await self.flush()
                except Exception:  # a store outage: these counts are dropped, and logged
                    log.exception("access reinforcement flush failed")
        finally:
            with contextlib.suppress(Exception):
                await self.flush()
