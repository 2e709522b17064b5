"""The fast read path: the compact reader, and recall's read of its shortlist."""

import uuid
from collections.abc import AsyncIterator

import pytest

from app.errors import StoreUnavailable
from app.scope import Scope
from app.storage.falkordb import compact
from app.storage.falkordb.server import EmbeddedFalkorDB
from app.storage.graph.records import RecallCandidates
from app.storage.graph.store import GraphStore
from tests.conftest import free_port


def test_compact_values_become_python_values():
    cell = [
        compact.MAP,
        [
            "s",
            [2, "x"],
            "i",
            [3, 7],
            "f",
            [5, "0.25"],
            "t",
            [4, "true"],
            "n",
            [1, None],
            "l",
            [6, [[2, "a"], [4, "false"]]],
        ],
    ]
    assert compact.value(cell) == {
        "s": "x",
        "i": 7,
        "f": 0.25,
        "t": True,
        "n": None,
        "l": ["a", False],
    }


def test_nodes_are_refused_with_a_hint():
    with pytest.raises(TypeError, match=r"properties\(n\)"):
        compact.value([8, [1, [0], []]])


def test_a_reply_without_records_has_no_rows():
    assert compact.rows([["Nodes created: 1"]]) == []


@pytest.fixture
async def graph(falkordb_url: str) -> AsyncIterator[GraphStore]:
    store = GraphStore(falkordb_url, f"compact-{uuid.uuid4().hex[:8]}")
    yield store
    await store.query("MATCH (n) DETACH DELETE n")
    await store.close()


async def test_parameters_stay_values(graph: GraphStore):
    tricky = 'He said "hi" \\ then \'}) MATCH (n) DETACH DELETE n //'
    await graph.query(
        "CREATE (:Memory {id: 'a', content: $c, n: 2, w: 0.5, ok: true})", {"c": tricky}
    )
    rows = await graph.ro_rows(
        "MATCH (m:Memory) WHERE m.content = $c RETURN properties(m), [m.n, m.w], m.missing",
        {"c": tricky},
    )
    assert rows == [[{"id": "a", "content": tricky, "n": 2, "w": 0.5, "ok": True}, [2, 0.5], None]]


ALICE, BOB = Scope("alice", None), Scope("bob", None)


async def _turns(graph: GraphStore) -> None:
    """alice: t1 ← t2 ← t3 (one session), x (PRECEDED_BY but not a session link), old → new
    (INVALIDATED_BY), r RELATES_TO t1; bob: b, linked as a session turn after alice's t3."""
    await graph.query(
        """
        UNWIND $alice AS id CREATE (:Memory {id: id, user_id: 'alice', agent_lineage: []})
        WITH count(*) AS made
        CREATE (:Memory {id: 'b', user_id: 'bob', agent_lineage: []})
        """,
        {"alice": ["t1", "t2", "t3", "x", "old", "new", "r"]},
    )
    await graph.query(
        """
        MATCH (t1:Memory {id: 't1'}), (t2:Memory {id: 't2'}), (t3:Memory {id: 't3'}),
              (x:Memory {id: 'x'}), (old:Memory {id: 'old'}), (new:Memory {id: 'new'}),
              (r:Memory {id: 'r'}), (b:Memory {id: 'b'})
        CREATE (t2)-[:PRECEDED_BY {session: true}]->(t1), (t3)-[:PRECEDED_BY {session: true}]->(t2),
               (x)-[:PRECEDED_BY]->(t1), (old)-[:INVALIDATED_BY]->(new), (r)-[:RELATES_TO]->(t1),
               (b)-[:PRECEDED_BY {session: true}]->(t3)
        """
    )


async def test_recall_candidates_reads_the_shortlist_and_the_turns_around_seeds(graph):
    await _turns(graph)
    found = await graph.recall_candidates(ALICE, ["t2", "old", "r", "b"], seeds=["t2", "b"])

    assert set(found.properties) == {"t2", "old", "r", "t1", "t3"}  # bob's b is not alice's
    assert sorted(found.neighbours) == [("t2", "t1"), ("t2", "t3")]  # session links only
    assert found.replaced == {"old"}  # INVALIDATED_BY counts, RELATES_TO does not
    assert found.properties["t1"]["user_id"] == "alice"


async def test_recall_candidates_of_another_user_sees_nothing_of_alice(graph):
    await _turns(graph)
    found = await graph.recall_candidates(BOB, ["t1", "t2", "t3", "old", "b"], seeds=["t3", "b"])

    assert set(found.properties) == {"b"}
    assert found.neighbours == []  # b's session link goes to alice's t3: not bob's to see
    assert found.replaced == set()


async def test_recall_candidates_keeps_agent_scopes_apart_and_follows_evolved_into(graph):
    await graph.query(
        """
        CREATE (a:Memory {id: 'a', user_id: 'alice', agent_lineage: ['x']}),
               (b:Memory {id: 'b', user_id: 'alice', agent_lineage: ['y']}),
               (c:Memory {id: 'c', user_id: 'alice', agent_lineage: []}),
               (a)-[:PRECEDED_BY {session: true}]->(c), (b)-[:PRECEDED_BY {session: true}]->(c),
               (c)-[:EVOLVED_INTO]->(a)
        """
    )
    found = await graph.recall_candidates(Scope("alice", "x"), ["a", "b", "c"], seeds=["a", "b"])

    assert set(found.properties) == {"a", "c"}  # agent y's memory is not agent x's to see
    assert found.neighbours == [("a", "c")]  # c is already a candidate: listed, not re-read
    assert found.replaced == {"c"}


async def test_errors_inside_a_reply_are_raised(graph: GraphStore):
    await graph.query("CREATE (:Memory {id: 'a'})")
    with pytest.raises(Exception, match="[Dd]ivision by zero"):
        await graph.ro_rows("RETURN 1 / $zero", {"zero": 0})


async def test_a_server_gone_away_is_store_unavailable(tmp_path):
    server = EmbeddedFalkorDB(data_dir=tmp_path, port=free_port())
    store = GraphStore(await server.start(), "gone")
    await server.stop()
    with pytest.raises(StoreUnavailable):
        await store.ro_rows("RETURN 1", {})
    await store.close()


class CountingGraph(GraphStore):
    """The real graph, counting the queries recall's candidate read makes."""

    def __init__(self, url: str, name: str) -> None:
        super().__init__(url, name)
        self.reads: list[tuple[list[str], list[str]]] = []

    async def _recall_candidates(self, scope, memory_ids, seeds):
        self.reads.append((list(memory_ids), list(seeds)))
        return await super()._recall_candidates(scope, memory_ids, seeds)


async def test_the_candidate_read_is_two_queries_that_add_up_to_one(graph, falkordb_url):
    await _turns(graph)
    counting = CountingGraph(falkordb_url, graph.graph_name)
    ids, seeds = ["t2", "old", "r", "t3"], ["t2", "t3"]

    found = await counting.recall_candidates(ALICE, ids, seeds)
    whole = await graph._recall_candidates(ALICE, ids, seeds)  # the same read as one query

    assert counting.reads == [(["t2", "r"], ["t2"]), (["old", "t3"], ["t3"])]
    assert found.properties == whole.properties
    # t3's neighbour t2 is a candidate of the other query: its properties come from there
    assert sorted(found.neighbours) == sorted(whole.neighbours)
    assert found.replaced == whole.replaced == {"old"}
    await counting.close()


async def test_a_short_list_is_read_in_one_query(graph, falkordb_url):
    await _turns(graph)
    counting = CountingGraph(falkordb_url, graph.graph_name)

    found = await counting.recall_candidates(ALICE, ["t2"], seeds=[])

    assert counting.reads == [(["t2"], [])]
    assert set(found.properties) == {"t2"}
    assert await counting.recall_candidates(ALICE, [], seeds=[]) == RecallCandidates({}, [], set())
    assert len(counting.reads) == 1  # nothing asked, nothing read
    await counting.close()
