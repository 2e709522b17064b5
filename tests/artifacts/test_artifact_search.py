"""`include_artifacts` on recall, on real stores with the local embedder: the chunks of text
artifacts are found by meaning, only on demand, only in the caller's scope; their search index
is built by the upload's job (or by the search within its budget) and leaves with its file."""

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import numpy as np
import pytest

from app.artifacts.search import (
    CHUNK_CHARS,
    ChunkIndex,
    chunk_spans,
    dump_index,
    load_index,
)
from app.storage.artifacts.files import INDEX_SUFFIX
from tests.artifacts.test_artifacts import attach, new_memory, stored_path
from tests.conftest import ALICE_KEY, BOB_KEY, auth, running_client, test_settings

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
        assert over_budget == {"results": [], "searched": 0, "pending": 1, "skipped": 0}

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


async def test_an_empty_or_blank_text_artifact_has_no_chunks_and_breaks_no_search(client):
    """Issue 41, item 2: an empty text used to fail its index job and every search (a reshape
    of no vectors)."""
    memory_id = await new_memory(client)
    blanks = []
    for name, text in (("empty.txt", ""), ("blank.md", "  \n\t \n ")):
        created = await attach(client, memory_id, filename=name, content=text)
        assert created.status_code == 201, created.text
        blanks.append(created.json()["artifact"]["id"])
    for aid in blanks:  # their jobs succeed: an index of no chunks
        await wait_for_index(client, "alice", memory_id, aid)
    needle = await attach(client, memory_id, filename="shed.txt", content=NEEDLE)
    await wait_for_index(client, "alice", memory_id, needle.json()["artifact"]["id"])

    found = (await search(client, "restore the billing database from the snapshot"))["artifacts"]
    assert found["skipped"] == 0
    assert any(h["artifact"]["id"] == needle.json()["artifact"]["id"] for h in found["results"])
    assert not any(h["artifact"]["id"] in blanks for h in found["results"])
    got = await client.get(f"/memory/{memory_id}/artifacts/{blanks[0]}", headers=ALICE)
    assert got.status_code == 200 and got.json()["content"] == ""


async def test_an_index_that_does_not_hold_together_is_rebuilt(client):
    memory_id = await new_memory(client)
    created = await attach(client, memory_id, filename="runbook.md", content=RUNBOOK)
    meta = created.json()["artifact"]
    await wait_for_index(client, "alice", memory_id, meta["id"])
    embedder = client.app.state.runtime.embedder  # type: ignore[attr-defined]
    index = stored_path(client, "alice", memory_id, meta["id"]).with_name(meta["id"] + INDEX_SUFFIX)
    for planted in (
        ChunkIndex(meta["sha256"], embedder.model, [(0, 10), (10, 20)], np.ones((1, 384))),
        ChunkIndex(meta["sha256"], embedder.model, [(0, 10)], np.ones((1, 3))),
    ):
        index.write_bytes(dump_index(planted))
        found = (await search(client, "how is the billing database restored?"))["artifacts"]
        assert found["skipped"] == 0
        assert any(h["artifact"]["id"] == meta["id"] for h in found["results"])
        rebuilt = load_index(index.read_bytes())
        assert rebuilt is not None and rebuilt.vectors.shape[1] == embedder.dimension


async def test_an_artifact_that_fails_is_left_out_and_reported(falkordb_url, tmp_path):
    """One artifact whose file cannot be read: recall answers without it (`skipped`), /health
    counts it, fsck names it, and deleting it clears the report."""
    settings = test_settings(
        tmp_path, falkordb_url=falkordb_url, embedding_provider="local", embedding_dimensions=None
    )
    async with running_client(settings) as isolated:
        memory_id = await new_memory(isolated)
        good = (await attach(isolated, memory_id, filename="a.md", content=NEEDLE)).json()
        bad = (await attach(isolated, memory_id, filename="b.md", content=NEEDLE)).json()
        healthy = (await isolated.get("/health")).json()["artifact_search"]
        assert healthy == {"state": "ok", "broken": 0}
        path = stored_path(isolated, "alice", memory_id, bad["artifact"]["id"])
        path.unlink()
        path.mkdir()  # there, and unreadable as a file

        found = (await search(isolated, "restore the billing database"))["artifacts"]
        assert found["skipped"] == 1 and found["searched"] == 1
        assert [h["artifact"]["id"] for h in found["results"]] == [good["artifact"]["id"]]
        health = (await isolated.get("/health")).json()
        assert health["status"] == "healthy"
        assert health["artifact_search"]["state"] == "degraded"
        assert health["artifact_search"]["broken"] == 1
        assert health["artifact_search"]["last_error"] == "IsADirectoryError"
        assert memory_id not in json.dumps(health)

        report = (await isolated.post("/admin/fsck", json={}, headers=ALICE)).json()
        assert report["counts"].get("broken_artifact_index") == 1
        assert report["counts"].get("corrupt_artifact") == 1

        path.rmdir()
        gone = f"/memory/{memory_id}/artifacts/{bad['artifact']['id']}"
        assert (await isolated.delete(gone, headers=ALICE)).status_code == 200
        after = (await isolated.get("/health")).json()["artifact_search"]
        assert (after["state"], after["broken"]) == ("ok", 0)
