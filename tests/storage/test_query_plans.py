"""The plans FalkorDB makes for the queries whose plan decides their cost at scale.

Timings do not belong in tests; the plan's shape does. On a large store the expansions took
seconds when they started from every memory of the user instead of from the seeds, and the
listings built the properties of every match before sorting.
"""

import uuid
from collections.abc import AsyncIterator

import pytest

from app.relation_types import REGISTRY
from app.scope import Scope
from app.storage.falkordb import compact
from app.storage.graph import api_keys, duplicates, relations
from app.storage.graph import cypher as queries
from app.storage.graph import enrichment as entities
from app.storage.graph.records import scope_params
from app.storage.graph.schema import migrate
from app.storage.graph.store import GraphStore

SCOPE = scope_params(Scope("ann"))


@pytest.fixture
async def graph(falkordb_url: str) -> AsyncIterator[GraphStore]:
    store = GraphStore(falkordb_url, f"plans-{uuid.uuid4().hex[:8]}")
    await migrate(store)  # the indexes: the planner's choices depend on them
    yield store
    await store.close()


async def plan(graph: GraphStore, cypher: str, params: dict) -> list[str]:
    command = compact.params_header(params) + cypher
    lines = await graph._graph.execute_command("GRAPH.EXPLAIN", graph.graph_name, command)
    return [line.strip() for line in lines]


@pytest.mark.parametrize(
    ("cypher", "params"),
    [
        (entities.EXPAND_BY_ENTITIES, {"seeds": ["a"], "limit": 5}),
        (
            relations.EXPAND,
            {
                "seeds": ["a"],
                "types": list(REGISTRY),
                "min_strength": 0.0,
                "min_importance": 0.0,
                "limit": 5,
            },
        ),
        (queries.SUPERSEDED_HEADS, {"ids": ["a"]}),
    ],
)
async def test_walks_start_from_the_given_ids(graph: GraphStore, cypher: str, params: dict):
    steps = await plan(graph, cypher, {**params, **SCOPE})
    scans = [step for step in steps if "Scan |" in step]
    assert scans == ["Node By Index Scan | (s:Memory)"], steps


async def test_an_entity_is_found_before_the_memories_that_mention_it(graph: GraphStore):
    params = {"slug": "ann", "name": "ann", "memory_limit": 5, **SCOPE}
    steps = await plan(graph, entities.GET_ENTITY, params)
    assert steps[-1] == "Node By Index Scan | (x:Entity)", steps


@pytest.mark.parametrize(
    ("cypher", "params"),
    [
        (queries.PINNED, {"limit": 5, "archived": False}),
        (queries.IMPORTANT, {"min_importance": 0.5, "limit": 5, "archived": False}),
        (queries.RECENT, {"since": "2020-01-01", "limit": 5, "archived": False}),
        (queries.TAGGED_EXACT, {"tags": ["x"], "limit": 5}),
        (
            queries.BROWSE,
            {
                "tags": [],
                "excluded": [],
                "start": None,
                "end": None,
                "types": [],
                "layers": [],
                "roles": [],
                "now": None,
                "decayed": False,
                "archived": False,
                "limit": 5,
            },
        ),
        (queries.LIST_BY_TAGS, {"tags": ["x"], "offset": 0, "limit": 5, "archived": False}),
    ],
)
async def test_listings_build_properties_only_for_what_they_return(
    graph: GraphStore, cypher: str, params: dict
):
    steps = await plan(graph, cypher, {**params, **SCOPE})
    assert steps[:3] == ["Results", "Project", "Limit"] or steps[:4] == [
        "Results",
        "Project",
        "Skip",
        "Limit",
    ], steps


@pytest.mark.parametrize(
    ("cypher", "params"),
    [
        (api_keys.ACTIVE_BY_DIGEST, {"digest": "ab12"}),
        (api_keys.GET_KEY, {"key_id": "0123456789abcdef"}),
    ],
)
async def test_api_key_look_ups_use_their_index(graph: GraphStore, cypher: str, params: dict):
    """The digest look-up runs on every unseen key: it must not scan every key."""
    steps = await plan(graph, cypher, params)
    scans = [step for step in steps if "Scan |" in step]
    assert scans == ["Node By Index Scan | (k:ApiKey)"], steps


async def test_the_duplicate_look_up_starts_from_the_content_hash_index(graph: GraphStore):
    """POST /memory's lookup of a current memory with the same content is an index seek, not a
    scan of the user's memories (and so is its tombstone check)."""
    row = {"id": "a", "user_id": "ann", "content": "x", "layer": "consolidated", "role": "user"}
    params = {"row": row, "hash": "h", "actor": "t", "now": "2026", **SCOPE}
    steps = await plan(graph, duplicates.STORE_UNLESS_DUPLICATE, params)
    scans = sorted(step for step in steps if "Scan |" in step)
    assert scans == ["Node By Index Scan | (d:Memory)", "Node By Index Scan | (t:Tombstone)"]
