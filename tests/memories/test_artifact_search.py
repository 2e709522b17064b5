"""`include_artifacts` on recall, on real stores with the local embedder: the chunks of text
artifacts are found by meaning, only on demand, only in the caller's scope; their search index
is built by the upload's job (or by the search within its budget) and leaves with its file."""

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from app.memories.artifact_search import CHUNK_CHARS, chunk_spans
from app.storage.artifacts import INDEX_SUFFIX
from tests.conftest import ALICE_KEY, BOB_KEY, auth, running_client, test_settings
from tests.memories.test_artifacts import attach, new_memory, stored_path

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)

FILLER = (
    "The quarterly report lists the office supplies that were ordered, the printers that were "
    "repaired and the desks that were moved between floors during the spring. "
)
NEEDLE = (
    "To restore the billing database after an outage, stop the API, copy the nightly snapshot "
    "from the backup bucket and replay the write-ahead log up to the failure. "
)
RUNBOOK = FILLER * 12 + NEEDLE + FILLER * 12


@pytest.fixture(scope="module")
async def client(falkordb_url: str, tmp_path_factory) -> AsyncIterator[httpx.AsyncClient]:
    settings = test_settings(
        tmp_path_factory.mktemp("artifact-search"),
        falkordb_url=falkordb_url,
        embedding_provider="local",
        embedding_dimensions=None,
        workers=2,
        jobs_sweep_s=1,
    )
    async with running_client(settings) as running:
        yield running


async def wait_for_index(client: httpx.AsyncClient, user: str, memory_id: str, aid: str) -> None:
    index = stored_path(client, user, memory_id, aid).with_name(aid + INDEX_SUFFIX)
    for _ in range(300):
        if index.exists():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the artifact_index job wrote no index")


async def search(client: httpx.AsyncClient, query: str, headers=ALICE, **extra) -> dict:
    body = {"query": query, "include_artifacts": True, **extra}
    response = await client.post("/recall", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_chunks_cover_the_text_and_end_between_words():
    text = ("word " * 700).strip()
    spans = chunk_spans(text)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert all(0 < end - start <= CHUNK_CHARS for start, end in spans)
    assert all(text[end - 1] == " " for _, end in spans[:-1])


async def test_the_chunk_that_answers_is_found_with_its_offsets(client):
    memory_id = await new_memory(client)
    created = await attach(client, memory_id, filename="runbook.md", content=RUNBOOK)
    aid = created.json()["artifact"]["id"]
    await wait_for_index(client, "alice", memory_id, aid)

    found = await search(client, "how do I recover the billing database after it goes down?")
    hits = found["artifacts"]["results"]
    assert found["artifacts"]["searched"] >= 1 and found["artifacts"]["pending"] == 0
    assert hits and hits[0]["memory_id"] == memory_id and hits[0]["artifact"]["id"] == aid
    best = hits[0]
    assert "billing database" in best["content"]
    assert RUNBOOK[best["offset"] : best["offset"] + best["length"]] == best["content"]

    plain = (await client.post("/recall", json={"query": "billing database"}, headers=ALICE)).json()
    assert "artifacts" not in plain or plain["artifacts"] is None


async def test_another_user_never_finds_them(client):
    memory_id = await new_memory(client)
    created = await attach(client, memory_id, filename="secret.txt", content=NEEDLE * 3)
    await wait_for_index(client, "alice", memory_id, created.json()["artifact"]["id"])

    found = await search(client, "restore the billing database from the snapshot", headers=BOB)
    assert found["artifacts"]["results"] == []
    assert found["artifacts"]["searched"] == 0


async def test_a_deleted_artifact_takes_its_index_and_its_hits_with_it(client):
    memory_id = await new_memory(client)
    text = "The spare key to the garden shed hangs behind the kitchen door on a blue hook. " * 3
    created = await attach(client, memory_id, filename="house.txt", content=text)
    aid = created.json()["artifact"]["id"]
    await wait_for_index(client, "alice", memory_id, aid)
    query = "where is the key for the garden shed?"
    before = (await search(client, query))["artifacts"]["results"]
    assert any(h["artifact"]["id"] == aid for h in before)

    deleted = await client.delete(f"/memory/{memory_id}/artifacts/{aid}", headers=ALICE)
    assert deleted.status_code == 200, deleted.text
    path = stored_path(client, "alice", memory_id, aid)
    assert not path.exists() and not path.with_name(aid + INDEX_SUFFIX).exists()
    after = (await search(client, query))["artifacts"]["results"]
    assert not any(h["artifact"]["id"] == aid for h in after)


async def test_a_search_builds_a_missing_index_within_its_budget(falkordb_url, tmp_path):
    # No workers: no job builds the index, the search must.
    settings = test_settings(
        tmp_path,
        falkordb_url=falkordb_url,
        embedding_provider="local",
        embedding_dimensions=None,
        artifact_search_embed_budget=0,
    )
    async with running_client(settings) as isolated:
        memory_id = await new_memory(isolated)
        created = await attach(isolated, memory_id, filename="runbook.md", content=RUNBOOK)
        aid = created.json()["artifact"]["id"]
        question = "how is the billing database restored?"
        over_budget = (await search(isolated, question))["artifacts"]
        assert over_budget == {"results": [], "searched": 0, "pending": 1}

        isolated.app.state.runtime.settings.artifact_search_embed_budget = 256  # type: ignore[attr-defined]
        within = (await search(isolated, question))["artifacts"]
        assert within["pending"] == 0 and within["searched"] == 1
        assert "billing database" in within["results"][0]["content"]
        assert stored_path(isolated, "alice", memory_id, aid).with_name(aid + INDEX_SUFFIX).exists()


async def test_binary_artifacts_are_not_searched(client):
    memory_id = await new_memory(client)
    created = await attach(
        client,
        memory_id,
        filename="scan.bin",
        content_type="application/octet-stream",
        content_base64="AAECAwQF",
    )
    assert created.status_code == 201, created.text
    binary_id = created.json()["artifact"]["id"]
    found = (await search(client, "scan"))["artifacts"]["results"]
    assert all(h["artifact"]["id"] != binary_id for h in found)


async def test_many_hits_of_several_artifacts_each_show_their_own_text(client):
    """The chunks' text is read once per artifact and request: each hit still shows its own."""
    memory_id = await new_memory(client)
    texts = {"a.md": FILLER * 20, "b.md": FILLER.replace("printers", "scanners") * 20}
    made = {}
    for filename, text in texts.items():
        created = await attach(client, memory_id, filename=filename, content=text)
        made[created.json()["artifact"]["id"]] = text
        await wait_for_index(client, "alice", memory_id, created.json()["artifact"]["id"])

    hits = (await search(client, "which office supplies were ordered?", limit=10))["artifacts"][
        "results"
    ]
    mine = [hit for hit in hits if hit["artifact"]["id"] in made]
    assert {hit["artifact"]["id"] for hit in mine} == set(made) and len(mine) > len(made)
    for hit in mine:
        text = made[hit["artifact"]["id"]]
        assert text[hit["offset"] : hit["offset"] + hit["length"]] == hit["content"]
