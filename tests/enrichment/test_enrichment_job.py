"""Enrichment end to end: real FalkorDB, Qdrant Edge, spaCy and the local embedder; the jobs
chained after embedding.

Most tests call the job functions directly (workers off) to control the order of events; one
runs the whole chain with in-process workers: write → embed job → enrich job.
"""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from app.enrichment.tasks import enrich_memories
from app.memories.tasks import embed_memories
from tests.conftest import ADMIN_KEY, ALICE_KEY, BOB_KEY, auth, running_client, test_settings
from tests.fake_openai import FakeOpenAI
from tests.memories.test_embedding_jobs import FAST_JOBS, wait_until

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = test_settings(
        tmp_path, falkordb_url=falkordb_url, embedding_provider="local", embedding_dimensions=None
    )
    async with running_client(settings) as client:
        yield client


async def remember(client: httpx.AsyncClient, content: str, headers=ALICE, **fields) -> str:
    response = await client.post("/memory", json={"content": content, **fields}, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


async def enrich(client: httpx.AsyncClient, user_id: str, *ids: str, force: bool = False) -> int:
    """Embeds then enriches, as the chained jobs would."""
    runtime = client.app.state.runtime
    await embed_memories(runtime, user_id, list(ids))
    return await enrich_memories(runtime, user_id, list(ids), force=force)


async def get(client: httpx.AsyncClient, memory_id: str, headers=ALICE) -> dict:
    response = await client.get(f"/memory/{memory_id}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()["memory"]


async def related(client: httpx.AsyncClient, memory_id: str, types: str, headers=ALICE) -> set:
    response = await client.get(
        f"/memories/{memory_id}/related", params={"relationship_types": types}, headers=headers
    )
    assert response.status_code == 200, response.text
    return {m["id"] for m in response.json()["related_memories"]}


async def test_entities_become_tags_nodes_and_a_summary(client: httpx.AsyncClient) -> None:
    memory_id = await remember(
        client,
        "I met Bob Smith at Google's London office to plan the launch. It went well.",
        tags=["work"],
    )
    assert await enrich(client, "alice", memory_id) == 1

    memory = await get(client, memory_id)
    assert memory["enrichment_status"] == "done"
    assert {"work", "entity:people:bob-smith", "entity:places:london"} <= set(memory["tags"])
    assert "entity:organizations:google" in memory["tags"]
    assert memory["summary"].startswith("I met Bob Smith")
    assert "It went well" not in memory["summary"]
    assert memory["metadata"]["entities"]["people"] == ["Bob Smith"]

    listed = (await client.get("/entities", headers=ALICE)).json()
    by_id = {e["id"]: e for e in listed["entities"]}
    assert by_id["people:bob-smith"]["reference_count"] == 1
    entity = (await client.get("/entity/bob-smith", headers=ALICE)).json()["entity"]
    assert entity["memory_ids"] == [memory_id]
    assert entity["name"] == "Bob Smith"

    # The payload followed the graph: a tag filter finds the memory by its entity tag.
    found = await client.get(
        "/recall", params={"tags": "entity:people:bob-smith", "query": "launch"}, headers=ALICE
    )
    assert [r["id"] for r in found.json()["results"]] == [memory_id]


async def test_an_entity_lists_its_memories_newest_first(client: httpx.AsyncClient) -> None:
    days = ["2024-02-11", "2024-06-02", "2024-01-05", "2024-04-20"]
    ids = {
        day: await remember(client, f"Visited Lisbon again ({day}).", timestamp=day) for day in days
    }
    await enrich(client, "alice", *ids.values())

    entity = (await client.get("/entity/lisbon", headers=ALICE)).json()["entity"]
    assert entity["memory_ids"] == [ids[day] for day in sorted(days, reverse=True)]


async def test_entities_are_scoped_to_their_owner(client: httpx.AsyncClient) -> None:
    alice_id = await remember(client, "Dinner with Margaret Thatcher in Paris.")
    await enrich(client, "alice", alice_id)

    assert (await client.get("/entities", headers=BOB)).json()["entities"] == []
    assert (await client.get("/entity/margaret-thatcher", headers=BOB)).status_code == 404
    bob_id = await remember(client, "Bob visited Paris in May.", headers=BOB)
    await enrich(client, "bob", bob_id)
    paris = (await client.get("/entity/paris", headers=BOB)).json()["entity"]
    assert paris["memory_ids"] == [bob_id]  # Alice's Paris is another node, and invisible


async def test_similar_to_links_the_same_user_only(client: httpx.AsyncClient) -> None:
    text = "The quarterly budget review moved to Thursday afternoon"
    first = await remember(client, text)
    second = await remember(client, "The quarterly budget review was moved to Thursday afternoon")
    bobs = await remember(client, text, headers=BOB)
    await enrich(client, "bob", bobs)
    await enrich(client, "alice", first)
    await enrich(client, "alice", second)

    assert await related(client, second, "SIMILAR_TO") == {first}
    assert await related(client, first, "SIMILAR_TO") == {second}
    assert await related(client, bobs, "SIMILAR_TO", headers=BOB) == set()
    neighbours = (await get(client, second))["metadata"]["enrichment"]["semantic_neighbors"]
    assert [n["id"] for n in neighbours] == [first] and neighbours[0]["score"] >= 0.8


async def test_shared_entity_links_to_the_latest_earlier_mention(
    client: httpx.AsyncClient,
) -> None:
    old = await remember(client, "Flew to Prague for the conference.", timestamp="2024-03-01")
    middle = await remember(client, "Prague has great beer halls.", timestamp="2024-03-02")
    unrelated = await remember(client, "Bought new running shoes.", timestamp="2024-03-03")
    new = await remember(client, "We left Prague this morning by train.", timestamp="2024-03-04")
    await enrich(client, "alice", old, middle, unrelated, new)

    assert await related(client, new, "PRECEDED_BY") == {middle}
    assert await related(client, middle, "PRECEDED_BY") == {old, new}


async def test_entity_order_links_do_not_depend_on_enrichment_order(
    client: httpx.AsyncClient,
) -> None:
    late = await remember(client, "Lunch in Krakow with the team today.", timestamp="2024-05-03")
    early = await remember(client, "Booked our flight to Krakow for May.", timestamp="2024-05-01")
    await enrich(client, "alice", late)
    await enrich(client, "alice", early)  # enriched after the later memory

    assert await related(client, late, "PRECEDED_BY") == {early}


async def test_changed_content_is_enriched_again_keeping_own_tags(
    client: httpx.AsyncClient,
) -> None:
    memory_id = await remember(client, "Call Angela Merkel about Berlin.", tags=["todo"])
    await enrich(client, "alice", memory_id)
    assert await enrich(client, "alice", memory_id) == 0  # same content: skipped

    patched = await client.patch(
        f"/memory/{memory_id}",
        json={"content": "Call Emmanuel Macron about his trip to Lyon."},
        headers=ALICE,
    )
    assert patched.status_code == 200
    assert await enrich(client, "alice", memory_id) == 1
    tags = set((await get(client, memory_id))["tags"])
    assert {"todo", "entity:people:emmanuel-macron", "entity:places:lyon"} <= tags
    assert not {"entity:people:angela-merkel", "entity:places:berlin"} & tags
    angela = (await client.get("/entity/angela-merkel", headers=ALICE)).status_code
    assert angela == 404  # no memory mentions her any more


async def test_changed_content_drops_the_links_the_old_content_made(
    client: httpx.AsyncClient,
) -> None:
    budget = "The quarterly budget review moved to Thursday afternoon in Prague"
    earlier = await remember(client, "Flew to Prague for the conference.", timestamp="2024-03-01")
    similar = await remember(client, budget.replace("moved", "was moved"), timestamp="2024-03-02")
    edited = await remember(client, budget, timestamp="2024-03-03")
    later = await remember(client, "Back from Prague on Monday.", timestamp="2024-03-04")
    await enrich(client, "alice", earlier, similar, edited, later)
    assert await related(client, edited, "SIMILAR_TO") == {similar}
    assert await related(client, edited, "PRECEDED_BY") == {similar, later}  # all name Prague
    assert await related(client, similar, "PRECEDED_BY") == {earlier, edited}

    patched = await client.patch(
        f"/memory/{edited}", json={"content": "Bought new running shoes."}, headers=ALICE
    )
    assert patched.status_code == 200
    assert await enrich(client, "alice", edited) == 1

    assert await related(client, edited, "SIMILAR_TO") == set()
    assert await related(client, similar, "SIMILAR_TO") == set()
    assert await related(client, edited, "PRECEDED_BY") == set()
    # The chain closes over the gap: the later mention now follows the one before the edited.
    assert await related(client, later, "PRECEDED_BY") == {similar}
    assert await related(client, similar, "PRECEDED_BY") == {earlier, later}


async def test_expand_entities_in_recall(client: httpx.AsyncClient) -> None:
    seed = await remember(client, "Quarterly planning with Priya Natarajan went long.")
    other = await remember(client, "Priya Natarajan prefers written agendas.")
    bobs = await remember(client, "Priya Natarajan joined our chess club.", headers=BOB)
    await enrich(client, "alice", seed, other)
    await enrich(client, "bob", bobs)

    body = {"query": "quarterly planning went long", "limit": 1, "expand_entities": True}
    answer = (await client.post("/recall", json=body, headers=ALICE)).json()
    ids = [r["id"] for r in answer["results"]]
    assert ids == [seed, other]
    expanded = answer["results"][1]
    assert expanded["match_type"] == "entity_expansion"
    assert expanded["expanded_from_entity"] == "people:priya-natarajan"
    assert expanded["related_to"] == [seed]
    assert answer["entity_expansion"]["entities_found"] == ["people:priya-natarajan"]
    assert "expand_entities" not in answer["unsupported"]


async def test_reprocess_queues_forced_jobs_for_admins_only(client: httpx.AsyncClient) -> None:
    memory_id = await remember(client, "Lunch with Carlos Mendes.")
    await enrich(client, "alice", memory_id)

    assert (await client.post("/enrichment/reprocess", headers=ALICE)).status_code == 403
    empty = await client.post("/enrichment/reprocess", json={}, headers=ADMIN)
    assert empty.status_code == 400
    assert "No memory ids" in empty.json()["message"]

    queued = await client.post(
        "/enrichment/reprocess", json={"ids": f"{memory_id},no-such-id"}, headers=ADMIN
    )
    assert queued.status_code == 202, queued.text
    body = queued.json()
    assert (body["count"], body["ids"], body["missing"]) == (1, [memory_id], ["no-such-id"])
    job = (await client.get(f"/admin/jobs/{body['job_ids'][0]}", headers=ADMIN)).json()
    assert job["state"] == "queued"

    by_filter = await client.post(
        "/enrichment/reprocess",
        json={"user_id": "alice", "enrichment_status": "done"},
        headers=ADMIN,
    )
    assert by_filter.json()["ids"] == [memory_id]


async def test_the_whole_chain_runs_in_workers(falkordb_url: str, tmp_path: Path) -> None:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, **FAST_JOBS)
    async with running_client(settings) as client:
        memory_id = await remember(client, "Trip to Lisbon with Joana Silva next spring.")

        async def enriched() -> bool:
            return (await get(client, memory_id))["enrichment_status"] == "done"

        await wait_until(enriched)
        assert "entity:places:lisbon" in (await get(client, memory_id))["tags"]
        status = (await client.get("/enrichment/status", headers=ALICE)).json()
        assert status["enrichment"]["enabled"] is True
        assert status["enrichment"]["memories"]["done"] >= 1
        assert status["llm"] is None


@pytest.fixture(scope="module")
def llm_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
async def llm_client(
    falkordb_url: str, tmp_path: Path, llm_server: FakeOpenAI
) -> AsyncIterator[httpx.AsyncClient]:
    llm_server.reset()
    settings = test_settings(
        tmp_path,
        falkordb_url=falkordb_url,
        llm_base_url=llm_server.base_url,
        llm_model="fake-model",
        llm_max_retries=0,
        enrichment_circuit_cooldown_s=300,
    )
    async with running_client(settings) as client:
        yield client


UNPATTERNED = "The harbour lights were grey over the water."


async def test_the_llm_types_what_no_pattern_could(
    llm_client: httpx.AsyncClient, llm_server: FakeOpenAI
) -> None:
    llm_server.config.chat_reply = '{"type": "observation", "confidence": 0.8}'
    memory_id = await remember(llm_client, UNPATTERNED)
    stored = await get(llm_client, memory_id)
    assert (stored["type"], stored["confidence"]) == ("Context", 0.3)
    assert stored["metadata"]["classification"]["needs_reclassification"] is True
    assert llm_server.paths() == []  # never inside the request

    await enrich(llm_client, "alice", memory_id)
    typed = await get(llm_client, memory_id)
    assert (typed["type"], typed["confidence"]) == ("Insight", 0.8)
    assert typed["metadata"]["classification"] == {
        "method": "llm",
        "needs_reclassification": False,
    }
    status = (await llm_client.get("/enrichment/status", headers=ALICE)).json()
    assert status["classification"]["llm_successes"] == 1
    assert status["llm"]["tokens"]["total"] > 0


async def test_a_pattern_match_never_asks_the_llm(
    llm_client: httpx.AsyncClient, llm_server: FakeOpenAI
) -> None:
    memory_id = await remember(llm_client, "We decided to use Postgres over MySQL.")
    assert (await get(llm_client, memory_id))["type"] == "Decision"
    await enrich(llm_client, "alice", memory_id)
    assert llm_server.paths() == []


async def test_quota_error_leaves_a_canonical_fallback_and_opens_the_circuit(
    llm_client: httpx.AsyncClient, llm_server: FakeOpenAI
) -> None:
    llm_server.config.quota_exceeded = True
    first = await remember(llm_client, UNPATTERNED)
    second = await remember(llm_client, "Soft rain on the roof all night.")
    await enrich(llm_client, "alice", first, second)

    for memory_id in (first, second):
        memory = await get(llm_client, memory_id)
        assert (memory["type"], memory["confidence"]) == ("Context", 0.3)
        assert memory["metadata"]["classification"]["needs_reclassification"] is True
        assert memory["enrichment_status"] == "done"  # entities and links still made
    assert len(llm_server.paths()) == 1  # the open circuit spared the second call
    status = (await llm_client.get("/enrichment/status", headers=ALICE)).json()
    assert status["llm"]["circuit"]["open"] is True
    assert status["classification"]["fallbacks"] == 2
    assert "quota" in status["classification"]["last_error"].lower()
