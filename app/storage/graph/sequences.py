"""Cypher for inferred conversation order (app/memories/sequence.py): the sequence key each
memory without a session carries, and the PRECEDED_BY links between its turns."""

from collections.abc import Sequence
from typing import Any

from app.storage.graph.store import GraphStore

SET_KEYS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = $user_id
SET m.sequence_key = row.key
"""
# A run's first memory follows the latest memory of an earlier write with its key whose
# timestamp is close to its own, if that one was written since $since. It runs before this
# write's keys are set, so the write's own memories are not candidates. The $since test comes
# after the choice of the latest: as a filter on the match, it would make FalkorDB scan the
# created_at index (every recent memory) instead of the sequence_key index for each run.
LINK_FIRSTS = """
UNWIND $firsts AS row
MATCH (m:Memory {id: row.id}) WHERE m.user_id = $user_id
MATCH (p:Memory {sequence_key: row.key})
WHERE p.user_id = $user_id AND p.timestamp >= row.after AND p.timestamp <= row.before
WITH m, p ORDER BY p.created_at DESC
WITH m, collect([p.id, p.created_at])[0] AS latest
WHERE latest[1] >= $since
MATCH (previous:Memory {id: latest[0]})
MERGE (m)-[r:PRECEDED_BY]->(previous) SET r.session = true
"""
LINK_PAIRS = """
UNWIND $pairs AS pair
MATCH (a:Memory {id: pair.later}), (b:Memory {id: pair.earlier})
WHERE a.user_id = $user_id AND b.user_id = $user_id
MERGE (a)-[r:PRECEDED_BY]->(b) SET r.session = true
"""


async def link_sequences(
    graph: GraphStore,
    user_id: str,
    keys: dict[str, str],
    firsts: Sequence[dict[str, Any]],
    pairs: Sequence[dict[str, str]],
    since: str,
) -> None:
    """Links each run's first to its earlier write, records the keys, links the runs' turns."""
    if not keys:
        return
    if firsts:
        params = {"firsts": list(firsts), "user_id": user_id, "since": since}
        await graph.query(LINK_FIRSTS, params)
    rows = [{"id": memory_id, "key": key} for memory_id, key in keys.items()]
    await graph.query(SET_KEYS, {"rows": rows, "user_id": user_id})
    if pairs:
        await graph.query(LINK_PAIRS, {"pairs": list(pairs), "user_id": user_id})
