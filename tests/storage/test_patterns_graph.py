"""EXEMPLIFIES links: a type the owner has enough confident memories of becomes a pattern."""

import uuid
from collections.abc import AsyncIterator

import pytest

from app.storage.graph import enrichment as store
from app.storage.graph.store import GraphStore

NOW = "2026-11-30T00:00:00+00:00"


@pytest.fixture
async def graph(falkordb_url: str) -> AsyncIterator[GraphStore]:
    store_ = GraphStore(falkordb_url, f"patterns-{uuid.uuid4().hex[:8]}")
    yield store_
    await store_.close()


async def _memories(graph: GraphStore, rows: list[tuple[str, str, str, float]]) -> None:
    await graph.query(
        "UNWIND $rows AS r "
        "CREATE (:Memory {id: r[0], user_id: r[1], type: r[2], confidence: r[3]})",
        {"rows": [list(r) for r in rows]},
    )


async def _exemplars(graph: GraphStore) -> dict[str, str]:
    rows = await graph.ro_query(
        "MATCH (m:Memory)-[:EXEMPLIFIES]->(p:Pattern) RETURN m.id, p.user_id + '/' + p.type"
    )
    return dict(rows)


async def test_a_type_with_enough_other_confident_memories_is_a_pattern(graph: GraphStore):
    await _memories(
        graph,
        [
            ("d1", "ann", "Decision", 0.9),
            ("d2", "ann", "Decision", 0.9),
            ("d3", "ann", "Decision", 0.9),
            ("d4", "ann", "Decision", 0.4),  # not confident
            ("h1", "ann", "Habit", 0.9),
            ("h2", "ann", "Habit", 0.9),
            ("x1", "bob", "Decision", 0.9),
            ("x2", "bob", "Decision", 0.9),  # another owner
        ],
    )

    linked = await store.link_patterns(graph, "ann", ["d1", "d4", "h1", "x1"], now=NOW)

    # d1 has two other confident Decisions (d2, d3): too few; d4 has three (d1–d3): a pattern.
    # Bob's memories neither count for Ann nor get linked in her call.
    assert await _exemplars(graph) == {"d4": "ann/Decision"}
    assert linked == 1
    await _memories(graph, [("d5", "ann", "Decision", 0.9)])
    await store.link_patterns(graph, "ann", ["d1", "d5", "h1"], now=NOW)
    assert await _exemplars(graph) == {
        "d4": "ann/Decision",
        "d1": "ann/Decision",
        "d5": "ann/Decision",
    }
