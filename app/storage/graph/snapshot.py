"""A whole graph read and written as plain records, for backup and restore (operator paths).

A node is `{"id", "labels", "properties"}` and a relationship `{"type", "src", "dst",
"properties"}`, where ids are the graph's internal node ids in the graph read (they only tie
relationships to nodes inside one backup). Reads page by internal id ranges, so a copy made
with GRAPH.COPY is read in one linear pass. Labels and relationship types cannot be Cypher
parameters: they are checked to be plain identifiers before they enter a query.
"""

from collections.abc import AsyncIterator, Sequence
from typing import Any

from app.models import MemoryProps
from app.storage.graph.store import GraphStore

ID_RANGE = 2048
WRITE_BATCH = 1000
DELETE_BATCH = 5000

MAX_NODE_ID = "MATCH (n) RETURN max(id(n))"
NODES_IN_RANGE = """
MATCH (n) WHERE id(n) >= $lo AND id(n) < $hi
RETURN id(n), labels(n), properties(n) ORDER BY id(n)
"""
EDGES_FROM_RANGE = """
MATCH (a) WHERE id(a) >= $lo AND id(a) < $hi
MATCH (a)-[r]->(b)
RETURN type(r), id(a), id(b), properties(r) ORDER BY id(r)
"""
COUNT_NODES = "MATCH (n) RETURN labels(n), count(n)"
COUNT_EDGES = "MATCH ()-[r]->() RETURN type(r), count(r)"
DELETE_SOME = f"MATCH (n) WITH n LIMIT {DELETE_BATCH} DETACH DELETE n RETURN count(n)"
CREATE_EDGES = """
UNWIND $rows AS row
MATCH (a) WHERE id(a) = row.src
MATCH (b) WHERE id(b) = row.dst
CREATE (a)-[r:{type}]->(b) SET r = row.properties
"""


def label_key(labels: Sequence[str]) -> str:
    """How a node kind is named in counts: its labels, sorted, joined by ':'."""
    return ":".join(sorted(labels))


async def iter_nodes(graph: GraphStore) -> AsyncIterator[list[dict[str, Any]]]:
    """Every node, a page at a time, in internal id order."""
    async for lo, hi in _id_ranges(graph):
        rows = await graph.ro_rows(NODES_IN_RANGE, {"lo": lo, "hi": hi})
        if rows:
            yield [{"id": i, "labels": labels, "properties": props} for i, labels, props in rows]


async def iter_edges(graph: GraphStore) -> AsyncIterator[list[dict[str, Any]]]:
    """Every relationship, grouped by its source node's id range."""
    async for lo, hi in _id_ranges(graph):
        rows = await graph.ro_rows(EDGES_FROM_RANGE, {"lo": lo, "hi": hi})
        if rows:
            yield [
                {"type": kind, "src": src, "dst": dst, "properties": props}
                for kind, src, dst, props in rows
            ]


async def _id_ranges(graph: GraphStore) -> AsyncIterator[tuple[int, int]]:
    rows = await graph.ro_rows(MAX_NODE_ID, {})
    top = rows[0][0] if rows and rows[0][0] is not None else -1
    for lo in range(0, top + 1, ID_RANGE):
        yield lo, lo + ID_RANGE


async def counts(graph: GraphStore) -> dict[str, dict[str, int]]:
    """Nodes per kind (label set) and relationships per type."""
    nodes: dict[str, int] = {}
    for labels, count in await graph.ro_rows(COUNT_NODES, {}):
        key = label_key(labels)
        nodes[key] = nodes.get(key, 0) + int(count)
    edges = {kind: int(count) for kind, count in await graph.ro_rows(COUNT_EDGES, {})}
    return {"nodes": dict(sorted(nodes.items())), "relationships": dict(sorted(edges.items()))}


async def create_nodes(graph: GraphStore, nodes: Sequence[dict[str, Any]]) -> dict[int, int]:
    """Creates nodes (any mix of kinds); returns backup id -> new internal id."""
    by_kind: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for node in nodes:
        by_kind.setdefault(tuple(sorted(node["labels"])), []).append(node)
    created: dict[int, int] = {}
    for labels, group in by_kind.items():
        cypher = (
            f"UNWIND $rows AS row CREATE (n{''.join(':' + _name(x) for x in labels)}) "
            "SET n = row.properties RETURN row.id, id(n)"
        )
        for start in range(0, len(group), WRITE_BATCH):
            rows = [
                {"id": n["id"], "properties": n["properties"]}
                for n in group[start : start + WRITE_BATCH]
            ]
            for old, new in await graph.query(cypher, {"rows": rows}):
                created[int(old)] = int(new)
    return created


async def create_edges(graph: GraphStore, edges: Sequence[dict[str, Any]]) -> int:
    """Creates relationships between nodes given by their new internal ids; returns how many."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for edge in edges:
        by_type.setdefault(edge["type"], []).append(edge)
    made = 0
    for kind, group in by_type.items():
        cypher = CREATE_EDGES.replace("{type}", _name(kind))
        for start in range(0, len(group), WRITE_BATCH):
            batch = group[start : start + WRITE_BATCH]
            await graph.query(cypher, {"rows": batch})
            made += len(batch)
    return made


async def delete_everything(graph: GraphStore) -> int:
    """Deletes every node and relationship (indexes stay), in batches; returns nodes deleted."""
    deleted = 0
    while True:
        rows = await graph.query(DELETE_SOME)
        count = int(rows[0][0]) if rows else 0
        deleted += count
        if count < DELETE_BATCH:
            return deleted


def _name(identifier: str) -> str:
    if not identifier.isidentifier():
        raise ValueError(f"not a plain identifier: {identifier!r}")
    return identifier


MEMORY_PROPERTIES = "MATCH (m:Memory) WHERE m.id IN $ids RETURN m.id, properties(m)"


async def memory_properties(graph: GraphStore, ids: Sequence[str]) -> dict[str, MemoryProps]:
    """The raw graph properties of live memories by id, any user (operator path)."""
    rows = await graph.ro_rows(MEMORY_PROPERTIES, {"ids": list(ids)})
    return dict(rows)
