"""/recall end to end on the real local embedder: order, floor, filters, state, tenancy."""

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest

from app.recall.channels import _chains, run_channels
from app.scope import Scope
from app.storage.vectors import VectorFilter
from tests.conftest import ALICE_KEY, BOB_KEY, auth, running_client, test_settings

H, BOB = auth(ALICE_KEY), auth(BOB_KEY)

MEMORIES = {
    "tea": {"content": "Alice drinks green tea every morning", "tags": ["drinks"], "type": "Habit"},
    "cat": {"content": "Alice has a cat named Miso", "tags": ["pets"], "importance": 0.9},
    "rust": {"content": "The billing service is written in Rust", "tags": ["project:billing/core"]},
    "trip": {
        "content": "Alice visited Lisbon for a conference",
        "tags": ["travel"],
        "timestamp": "2023-03-14T10:00:00Z",
    },
    "old": {
        "content": "Alice's office was in the old building",
        "t_invalid": "2024-01-01T00:00:00Z",
        "t_valid": "2020-01-01T00:00:00Z",
    },
}


@pytest.fixture(scope="module")
async def recall_app(
    falkordb_url: str, tmp_path_factory
) -> AsyncIterator[tuple[httpx.AsyncClient, dict]]:
    settings = test_settings(
        tmp_path_factory.mktemp("recall"),
        falkordb_url=falkordb_url,
        embedding_provider="local",
        embedding_dimensions=None,
        workers=2,
        jobs_sweep_s=1,
    )
    async with running_client(settings) as client:
        ids = {}
        for name, body in MEMORIES.items():
            response = await client.post("/memory", json=body, headers=H)
            ids[name] = response.json()["memory_id"]
        await client.post(
            "/memory", json={"content": "Bob's secret: green tea recipe"}, headers=BOB
        )
        await _wait_embedded(client)
        yield client, ids


async def _wait_embedded(client: httpx.AsyncClient) -> None:
    graph = client.app.state.stores.graph
    deadline = time.monotonic() + 60
    while await graph.unembedded(after="", limit=1):
        assert time.monotonic() < deadline, "embeddings not done"
        await asyncio.sleep(0.1)


async def recall(client: httpx.AsyncClient, headers=H, **params) -> dict:
    response = await client.get("/recall", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_best_match_first_in_score_order_with_components(recall_app):
    client, ids = recall_app
    body = await recall(client, query="what does Alice drink in the morning?", limit=3)
    assert body["results"][0]["id"] == ids["tea"]
    scores = [r["final_score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)
    components = body["results"][0]["score_components"]
    assert {"match", "vector", "keyword", "importance", "recency"} <= set(components)
    assert body["results"][0]["memory"]["id"] == ids["tea"]


async def test_post_recall_gives_the_same_answer(recall_app):
    client, ids = recall_app
    response = await client.post("/recall", json={"query": "Alice's pet", "limit": 2}, headers=H)
    assert response.status_code == 200
    assert response.json()["results"][0]["id"] == ids["cat"]


async def test_relevance_floor_drops_unrelated_memories(recall_app):
    client, _ = recall_app
    body = await recall(client, query="quantum chromodynamics lattice gauge", limit=10)
    assert body["results"] == []
    assert body["score_filter"]["filtered_count"] > 0
    unfloored = await recall(
        client, query="quantum chromodynamics lattice gauge", relevance_floor=0
    )
    assert unfloored["count"] > 0


async def test_tag_prefix_filter_and_exclusion(recall_app):
    client, ids = recall_app
    body = await recall(client, query="service written in", tags="project", limit=5)
    assert [r["id"] for r in body["results"]] == [ids["rust"]]
    excluded = await recall(client, query="Alice", exclude_tags="drinks,pets", limit=10)
    assert ids["tea"] not in {r["id"] for r in excluded["results"]}
    assert ids["cat"] not in {r["id"] for r in excluded["results"]}


async def test_time_window_from_phrase_and_unknown_phrase_is_reported(recall_app):
    client, ids = recall_app
    body = await recall(client, query="Alice trip", time_query="in March 2023", limit=5)
    assert [r["id"] for r in body["results"]] == [ids["trip"]]
    assert body["time_window"]["start"].startswith("2023-03-01")
    vague = await recall(client, query="Alice trip", time_query="around the solstice")
    assert any("not understood" in note for note in vague["unsupported"])


async def test_state_modes(recall_app):
    client, ids = recall_app
    current = await recall(client, query="Alice office building", limit=5)
    assert ids["old"] not in {r["id"] for r in current["results"]}
    assert current["state_filter"]["suppressed_count"] >= 1
    history = await recall(client, query="Alice office building", state_mode="history", limit=5)
    assert ids["old"] in {r["id"] for r in history["results"]}
    bad = await client.get("/recall", params={"query": "x", "state_mode": "sometimes"}, headers=H)
    assert bad.status_code == 400
    assert bad.json()["message"] == "'state_mode' must be 'current' or 'history'"


async def test_state_modes_without_a_query(recall_app):
    """Browsing (no query: the most important memories) follows the same state rule."""
    client, ids = recall_app
    current = await recall(client, limit=20)
    history = await recall(client, state_mode="history", limit=20)
    assert ids["old"] not in {r["id"] for r in current["results"]}
    assert ids["old"] in {r["id"] for r in history["results"]}
    assert {r["id"] for r in current["results"]} == set(ids.values()) - {ids["old"]}
    habits = await recall(client, type="Habit", limit=20)
    assert [r["id"] for r in habits["results"]] == [ids["tea"]]
    assert (await recall(client, role="assistant", limit=20))["results"] == []
    rest = await recall(client, exclude_tags="drinks,PETS", limit=20)
    assert {r["id"] for r in rest["results"]} == set(ids.values()) - {
        ids[n] for n in ("old", "tea", "cat")
    }


async def test_limit_is_clamped_and_bad_sort_falls_back(recall_app):
    client, _ = recall_app
    body = await recall(client, query="Alice", limit=0, relevance_floor=0)
    assert body["count"] == 1
    body = await recall(client, query="Alice", limit=1000, sort="sideways", relevance_floor=0)
    assert body["sort"] == "score" and body["count"] <= 100


async def test_no_channel_leaks_across_users(recall_app):
    client, ids = recall_app
    bob = await recall(
        client, headers=BOB, query="Alice green tea morning cat", limit=10, relevance_floor=0
    )
    assert [r["memory"]["user_id"] for r in bob["results"]] == ["bob"]
    for channels in ("bm25", "dense"):
        only = await recall(
            client, headers=BOB, query="Alice cat Miso", channels=channels, relevance_floor=0
        )
        assert all(r["memory"]["user_id"] == "bob" for r in only["results"])
    alice = await recall(client, query="secret recipe", limit=10, relevance_floor=0)
    assert all(r["memory"]["user_id"] == "alice" for r in alice["results"])


async def test_keywords_still_answer_when_the_query_embedding_fails(recall_app, monkeypatch):
    client, ids = recall_app
    embedder = client.app.state.runtime.embedder

    def failing(text):
        raise RuntimeError("the model is gone")

    # The query model itself fails (both ways of embedding a query run it).
    monkeypatch.setattr(embedder, "_query_vector", failing)
    body = await recall(client, query="Miso the cat", limit=1)

    assert body["degraded"] == ["embedder"]
    assert body["results"][0]["id"] == ids["cat"]
    assert embedder.health()["state"] != "ok"


class TwoSteps:
    """The local embedder without embed_query_then: recall embeds, then searches."""

    def __init__(self, embedder) -> None:
        self._embedder = embedder

    async def embed_query(self, text: str) -> list[float]:
        return await self._embedder.embed_query(text)


async def test_the_search_on_the_model_thread_finds_what_two_steps_find(recall_app):
    client, ids = recall_app
    runtime = client.app.state.runtime
    ask = {
        "query": "what does Alice drink",
        "vector": None,
        "channels": ["dense", "bm25"],
        "flt": VectorFilter(scope=Scope("alice")),
        "fetch": 50,
    }

    assert _chains(runtime.embedder, runtime.stores)  # else this compares two steps with two
    chained = await run_channels(runtime.stores, runtime.embedder, **ask)
    stepped = await run_channels(runtime.stores, TwoSteps(runtime.embedder), **ask)

    assert chained.hits == stepped.hits
    assert chained.hits["dense"][0][0] == ids["tea"]
    assert set(chained.timings) == {"embed", "search"} and not chained.degraded


@pytest.mark.parametrize("provider", ["hash", "local"])
async def test_keyword_fallback_to_graph_when_vector_index_is_down(
    falkordb_url, tmp_path, provider
):
    settings = test_settings(
        tmp_path,
        falkordb_url=falkordb_url,
        embedding_provider=provider,
        embedding_dimensions=8 if provider == "hash" else None,
    )
    async with running_client(settings) as client:
        await client.post("/memory", json={"content": "Zanzibar spice market notes"}, headers=H)
        await client.post("/memory", json={"content": "Zanzibar is Bob's"}, headers=BOB)
        await client.app.state.stores.vectors.close()
        body = await recall(client, query="zanzibar market")
        # The local model searches on its own thread: a failed search is the index's, not its.
        assert body["degraded"] == ["qdrant"]
        assert [r["memory"]["content"] for r in body["results"]] == ["Zanzibar spice market notes"]
        assert client.app.state.runtime.embedder.health()["state"] == "ok"


async def test_access_is_reinforced_asynchronously(recall_app):
    client, ids = recall_app
    await recall(client, query="Alice's cat", limit=1)
    await client.app.state.runtime.access.flush()
    memory = (await client.get(f"/memory/{ids['cat']}", headers=H)).json()["memory"]
    assert memory["access_count"] >= 1 and memory["last_accessed"] > memory["created_at"]


async def test_as_of_answers_from_revisions_and_tombstoned_memories(falkordb_url, tmp_path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    async with running_client(settings) as client:
        moved = (
            await client.post("/memory", json={"content": "Alice lives in Paris"}, headers=H)
        ).json()
        gone = (
            await client.post("/memory", json={"content": "Alice owns a Paris flat"}, headers=H)
        ).json()
        await asyncio.sleep(0.01)
        before = (await client.get("/health")).json()["timestamp"]
        await asyncio.sleep(0.01)
        await client.patch(
            f"/memory/{moved['memory_id']}", json={"content": "Alice lives in Berlin"}, headers=H
        )
        await client.delete(f"/memory/{gone['memory_id']}", headers=H)

        past = await recall(client, query="Paris", as_of=before, limit=5)
        contents = {r["memory"]["content"] for r in past["results"]}
        assert contents == {"Alice lives in Paris", "Alice owns a Paris flat"}
        now = await recall(client, query="Paris Berlin", relevance_floor=0, limit=5)
        assert {r["memory"]["content"] for r in now["results"]} == {"Alice lives in Berlin"}
        bob = await recall(client, headers=BOB, query="Paris", as_of=before)
        assert bob["results"] == []


async def test_expansion_and_superseded_replacement_over_relationships(falkordb_url, tmp_path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    async with running_client(settings) as client:

        async def store(content: str, headers=H) -> str:
            return (
                await client.post("/memory", json={"content": content}, headers=headers)
            ).json()["memory_id"]

        seed = await store("Project Falcon kickoff meeting notes")
        linked = await store("Budget approved for the next quarter")
        theirs = await store("Bob's unrelated budget", headers=BOB)
        await client.post(
            "/associate",
            json={"memory1_id": seed, "memory2_id": linked, "type": "LEADS_TO", "strength": 0.9},
            headers=H,
        )

        plain = await recall(client, query="Falcon kickoff", limit=1)
        assert [r["id"] for r in plain["results"]] == [seed]
        expanded = await recall(client, query="Falcon kickoff", limit=1, expand_relations="true")
        assert [r["id"] for r in expanded["results"]] == [seed, linked]
        assert expanded["results"][1]["expanded"] is True and expanded["results"][1][
            "related_to"
        ] == [seed]
        assert expanded["expansion"]["expanded_count"] == 1 and theirs not in str(expanded)

        newer = await store("Project Falcon kickoff moved to Monday")
        await client.post(
            "/associate",
            json={"memory1_id": seed, "memory2_id": newer, "type": "EVOLVED_INTO"},
            headers=H,
        )
        current = await recall(
            client, query="Falcon kickoff meeting notes", limit=5, relevance_floor=0
        )
        ids = [r["id"] for r in current["results"]]
        assert seed not in ids and newer in ids
        replacement = next(r for r in current["results"] if r["id"] == newer)
        assert (
            replacement.get("state_replaces") == seed
            or replacement["match_type"] != "state_replacement"
        )
        history = await recall(
            client, query="Falcon kickoff meeting notes", state_mode="history", relevance_floor=0
        )
        assert seed in [r["id"] for r in history["results"]]


async def test_context_hints_boost_without_filtering(recall_app):
    client, ids = recall_app
    plain = await recall(client, query="Alice", limit=10)
    boosted = await recall(
        client, query="Alice", context_tags="pets", context_types="habit", limit=10
    )
    by_id = {r["id"]: r for r in boosted["results"]}
    assert {r["id"] for r in plain["results"]} == set(by_id)  # nothing filtered out
    assert by_id[ids["cat"]]["score_components"]["context_priority"] == 0.1  # tag
    assert by_id[ids["tea"]]["score_components"]["context_priority"] == 0.1  # type
    assert by_id[ids["trip"]]["score_components"]["context_priority"] == 0
    assert boosted["context_priority"]["priority_types"] == ["Habit"]


async def test_priority_ids_come_first_within_the_limit(recall_app):
    client, ids = recall_app
    body = await recall(
        client, query="billing service", priority_ids=f"{ids['trip']},nope", limit=2
    )
    assert [r["id"] for r in body["results"]] == [ids["trip"], ids["rust"]]
    assert body["results"][0]["match_type"] == "priority_id"
    expired = await recall(client, query="billing service", priority_ids=ids["old"], limit=2)
    assert ids["old"] not in [r["id"] for r in expired["results"]]  # not current: not forced in
    bobs = await recall(client, BOB, query="tea", priority_ids=ids["tea"], limit=3)
    assert ids["tea"] not in [r["id"] for r in bobs["results"]]  # another user's id: nothing


async def test_scope_fallback_fills_from_outside_the_tags(recall_app):
    client, ids = recall_app
    # The trip shares two terms with the query (Alice, Lisbon): it passes the gate on words,
    # however the CPU's kernels round its similarity (0.38–0.41 across machines).
    query = "Alice cat Miso Lisbon"
    strict = await recall(client, query=query, tags="travel", limit=3)
    assert [r["id"] for r in strict["results"]] == [ids["trip"]]
    wide = await recall(client, query=query, tags="travel", limit=3, scope_fallback="true")
    results = wide["results"]
    assert results[0]["id"] == ids["trip"] and "outside_tag_scope" not in results[0]
    assert ids["cat"] in [r["id"] for r in results[1:]]
    assert all(r["outside_tag_scope"] for r in results[1:]) and wide["scope_fallback"] is True
    assert len(results) <= 3


async def test_auto_decompose_adds_sub_queries_that_do_not_outrank_the_query(recall_app):
    client, ids = recall_app
    question = "What did Alice drink every morning?"
    plain = await recall(client, query=question, limit=2)
    assert "queries" not in plain
    body = await recall(client, query=question, limit=2, auto_decompose="true")
    assert body["queries"] == [question, "Alice", "drink morning"]
    # "Alice" alone ranks the cat note first; counted at half, it cannot lift it over the
    # question's own match: the same results with the same scores.
    assert [(r["id"], r["score"]) for r in body["results"]] == [
        (r["id"], r["score"]) for r in plain["results"]
    ]
    assert body["results"][0]["id"] == ids["tea"]


async def test_adaptive_floor_cuts_the_tail_after_the_largest_gap(falkordb_url, tmp_path):
    # Ranks set here, not the model's: three memories lead both channels (the keyword and the
    # nearest vectors), three only trail in one, so the gap is wide on every CPU. (A one-word
    # query on the model's scores left a gap whose size moved with the kernels' last digits.)
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, embedding_dimensions=8)
    near = [("zebra", [1.0, 0.05 * i, 0, 0, 0, 0, 0, 0]) for i in range(3)]
    far = [("plain", [0.05 * i, 0, 1.0, 0, 0, 0, 0, 0]) for i in range(3)]
    async with running_client(settings) as client:
        for n, (word, vector) in enumerate(near + far):
            body = {"content": f"{word} note {n}", "embedding": vector}
            assert (await client.post("/memory", json=body, headers=H)).status_code == 201
        asked = {
            "query": "zebra",
            "embedding": ",".join(["1"] + ["0"] * 7),
            "channels": "dense,bm25",
            "relevance_floor": 0,
            "limit": 10,
        }
        full = await recall(client, **asked)
        cut = await recall(client, adaptive_floor="1", **asked)
        flags = (full["score_filter"]["adaptive_floor"], cut["score_filter"]["adaptive_floor"])
        assert flags == (False, True)
        assert full["count"] == 6
        kept = [r["id"] for r in cut["results"]]
        assert kept == [r["id"] for r in full["results"]][:3]
        assert {r["memory"]["content"] for r in cut["results"]} == {
            f"zebra note {n}" for n in range(3)
        }
        assert cut["score_filter"]["filtered_count"] > full["score_filter"]["filtered_count"]
        by_time = await recall(client, adaptive_floor="1", sort="time_desc", **asked)
        assert by_time["score_filter"]["adaptive_floor"] is False
        assert by_time["count"] == full["count"]


async def test_the_response_says_where_the_time_went(recall_app):
    client, _ = recall_app
    body = await recall(client, query="what does Alice drink?", limit=3)
    searched = {"tier", "prepare", "embed", "search", "second_pass", "fuse", "graph", "state"}
    searched |= {"evidence", "score", "expansion", "priority", "respond"}
    assert set(body["timings_ms"]) == searched
    assert all(ms >= 0 for ms in body["timings_ms"].values())
    # the steps run one after the other: together they are the server's time, not more
    assert sum(body["timings_ms"].values()) <= body["query_time_ms"] + 0.01 * len(searched)
    vector = ",".join(["0.05"] * 384)
    given = await recall(client, query="what does Alice drink?", embedding=vector, limit=3)
    assert "embed" not in given["timings_ms"] and "search" in given["timings_ms"]
    browse = await recall(client, tags="travel")
    assert set(browse["timings_ms"]) == {"tier", "browse", "priority", "respond"}
