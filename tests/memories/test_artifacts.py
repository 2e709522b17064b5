"""Artifacts end to end over HTTP on real stores: upload (JSON and multipart), list, read in
pages, download, signed URLs, limits and checks, tenancy, and what deleting does to the files."""

import asyncio
import base64
import hashlib
import time
import uuid
from pathlib import Path

import httpx
import pytest

from app.memories.artifact_checks import safe_filename
from app.memories.artifact_links import Grant, sign
from app.storage.artifacts import owner_dir
from tests.conftest import AGENT_KEY, ALICE_KEY, BOB_KEY, auth, running_client, test_settings

ALICE, BOB = auth(ALICE_KEY), auth(BOB_KEY)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


async def new_memory(client: httpx.AsyncClient, headers: dict[str, str] = ALICE) -> str:
    body = {"content": f"a memory with files ({uuid.uuid4()})"}  # a new memory, not a duplicate
    created = await client.post("/memory", json=body, headers=headers)
    assert created.status_code == 201, created.text
    return created.json()["memory_id"]


async def attach(
    client: httpx.AsyncClient, memory_id: str, headers: dict[str, str] = ALICE, **body: object
) -> httpx.Response:
    return await client.post(f"/memory/{memory_id}/artifacts", json=body, headers=headers)


def stored_path(client: httpx.AsyncClient, user_id: str, memory_id: str, artifact_id: str) -> Path:
    root = client.app.state.runtime.settings.data_dir / "artifacts"  # type: ignore[attr-defined]
    return root / owner_dir(user_id) / memory_id / artifact_id


async def test_a_text_artifact_is_listed_on_its_memory_and_read_in_pages(
    app_client: httpx.AsyncClient,
):
    memory_id = await new_memory(app_client)
    text = "Meeting notes: " + "é" * 50 + " end"
    created = await attach(
        app_client, memory_id, filename="notes.md", content_type="text/markdown", content=text
    )
    assert created.status_code == 201, created.text
    artifact = created.json()["artifact"]
    assert artifact["filename"] == "notes.md" and artifact["content_type"] == "text/markdown"
    assert artifact["size"] == len(text.encode())
    assert artifact["sha256"] == hashlib.sha256(text.encode()).hexdigest()

    path = stored_path(app_client, "alice", memory_id, artifact["id"])
    assert path.read_bytes() == text.encode()
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".partial-")]

    listed = (await app_client.get(f"/memory/{memory_id}/artifacts", headers=ALICE)).json()
    assert listed["count"] == 1 and listed["artifacts"] == [artifact]
    memory = (await app_client.get(f"/memory/{memory_id}", headers=ALICE)).json()["memory"]
    assert memory["artifacts"] == [artifact] and memory["version"] == 1

    url = f"/memory/{memory_id}/artifacts/{artifact['id']}"
    first = (await app_client.get(url, params={"limit": 20}, headers=ALICE)).json()
    assert first["content"] == text[:20] and first["total_chars"] == len(text)
    assert (first["offset"], first["limit"], first["next_offset"]) == (0, 20, 20)
    rest = (await app_client.get(url, params={"offset": 20, "limit": 1000}, headers=ALICE)).json()
    assert first["content"] + rest["content"] == text and rest["next_offset"] is None


async def test_a_binary_artifact_uploads_as_multipart_and_comes_back_whole(
    app_client: httpx.AsyncClient,
):
    memory_id = await new_memory(app_client)
    created = await app_client.post(
        f"/memory/{memory_id}/artifacts",
        files={"file": ("chart.png", PNG, "image/png")},
        headers=ALICE,
    )
    assert created.status_code == 201, created.text
    artifact = created.json()["artifact"]
    assert (artifact["content_type"], artifact["size"]) == ("image/png", len(PNG))

    url = f"/memory/{memory_id}/artifacts/{artifact['id']}"
    whole = await app_client.get(url, headers=ALICE)
    assert whole.status_code == 200 and whole.content == PNG
    assert whole.headers["content-type"] == "image/png"
    assert whole.headers["x-content-type-options"] == "nosniff"
    assert 'filename="chart.png"' in whole.headers["content-disposition"]
    encoded = (await app_client.get(url, params={"encoding": "base64"}, headers=ALICE)).json()
    assert base64.b64decode(encoded["content_base64"]) == PNG

    from_json = await attach(
        app_client,
        memory_id,
        filename="blob.bin",
        content_base64=base64.b64encode(b"\x00\xff").decode(),
    )
    assert from_json.json()["artifact"]["content_type"] == "application/octet-stream"


async def test_uploads_are_checked_and_filenames_sanitised(app_client: httpx.AsyncClient):
    memory_id = await new_memory(app_client)
    refused = await attach(
        app_client,
        memory_id,
        filename="x.exe",
        content_type="application/x-msdownload",
        content="x",
    )
    assert refused.status_code == 415 and "application/x-msdownload" in refused.json()["message"]
    mislabelled = await attach(
        app_client, memory_id, filename="a.png", content_type="image/png", content="not a png"
    )
    assert mislabelled.status_code == 400 and "image/png" in mislabelled.json()["message"]
    latin1 = base64.b64encode("café".encode("latin-1")).decode()
    not_utf8 = await attach(
        app_client, memory_id, filename="a.txt", content_type="text/plain", content_base64=latin1
    )
    assert not_utf8.status_code == 400 and "UTF-8" in not_utf8.json()["message"]
    both = await attach(app_client, memory_id, filename="a.txt", content="x", content_base64="eA==")
    assert both.status_code == 400

    odd = await attach(
        app_client, memory_id, filename="../../etc/\x07pass\u202e\nwd.txt", content="hi"
    )
    assert odd.status_code == 201
    assert odd.json()["artifact"]["filename"] == "passwd.txt"
    # Nothing half-written or refused stayed behind.
    listed = (await app_client.get(f"/memory/{memory_id}/artifacts", headers=ALICE)).json()
    assert listed["count"] == 1
    folder = stored_path(app_client, "alice", memory_id, odd.json()["artifact"]["id"]).parent
    assert [p.name for p in folder.iterdir()] == [odd.json()["artifact"]["id"]]


def test_filenames_lose_paths_controls_and_excess_length():
    assert safe_filename("C:\\Users\\me\\report.pdf") == "report.pdf"
    assert safe_filename("..") == "artifact" and safe_filename(None) == "artifact"
    assert safe_filename(".hidden") == "hidden"
    long = safe_filename("x" * 500 + ".txt")
    assert len(long) == 200 and long.endswith(".txt")


async def test_an_artifact_over_the_limit_is_413_naming_it(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, max_artifact_size=100)
    async with running_client(settings) as client:
        memory_id = await new_memory(client)
        too_big = await attach(client, memory_id, filename="big.txt", content="x" * 101)
        assert too_big.status_code == 413
        assert "100 bytes" in too_big.json()["message"]
        assert "MAX_ARTIFACT_SIZE" in too_big.json()["message"]
        multipart = await client.post(
            f"/memory/{memory_id}/artifacts",
            files={"file": ("big.bin", b"\x01" * 101, "application/octet-stream")},
            headers=ALICE,
        )
        assert multipart.status_code == 413
        assert (await attach(client, memory_id, filename="ok.txt", content="x" * 100)).is_success
        folder = tmp_path / "artifacts" / owner_dir("alice") / memory_id
        assert len(list(folder.iterdir())) == 1


async def test_artifacts_are_reachable_only_through_their_memorys_scope(
    app_client: httpx.AsyncClient,
):
    memory_id = await new_memory(app_client)
    artifact = (await attach(app_client, memory_id, filename="a.txt", content="secret")).json()
    aid = artifact["artifact"]["id"]
    for method, path in (
        ("GET", f"/memory/{memory_id}/artifacts"),
        ("GET", f"/memory/{memory_id}/artifacts/{aid}"),
        ("DELETE", f"/memory/{memory_id}/artifacts/{aid}"),
        ("POST", f"/memory/{memory_id}/artifacts/{aid}/url"),
    ):
        response = await app_client.request(method, path, headers=BOB)
        assert response.status_code == 404, (method, path, response.text)
    assert (
        await attach(app_client, memory_id, BOB, filename="b.txt", content="x")
    ).status_code == 404

    bob_agent, carol_agent = auth(AGENT_KEY, "openwebui:bob"), auth(AGENT_KEY, "openwebui:carol")
    scoped = await new_memory(app_client, bob_agent)
    aid = (await attach(app_client, scoped, bob_agent, filename="a.txt", content="x")).json()
    aid = aid["artifact"]["id"]
    sibling = await app_client.get(f"/memory/{scoped}/artifacts/{aid}", headers=carol_agent)
    assert sibling.status_code == 404
    parent = await app_client.get(
        f"/memory/{scoped}/artifacts/{aid}", headers=auth(AGENT_KEY, "openwebui")
    )
    assert parent.status_code == 200


async def test_a_signed_url_downloads_without_a_key_until_it_expires(
    app_client: httpx.AsyncClient,
):
    memory_id = await new_memory(app_client)
    aid = (await attach(app_client, memory_id, filename="r.txt", content="report")).json()
    aid = aid["artifact"]["id"]
    made = await app_client.post(
        f"/memory/{memory_id}/artifacts/{aid}/url", json={"expires_in": 60}, headers=ALICE
    )
    assert made.status_code == 200, made.text
    url = made.json()["url"]
    assert url.startswith("http://engram/artifacts/download?token=")
    downloaded = await app_client.get(url)  # no key
    assert downloaded.status_code == 200 and downloaded.content == b"report"
    assert downloaded.headers["content-type"].startswith("text/plain")

    tampered = url[:-2] + ("AA" if not url.endswith("AA") else "BB")
    assert (await app_client.get(tampered)).status_code == 403
    key = app_client.app.state.stores.artifacts.url_secret()  # type: ignore[attr-defined]
    expired = sign(Grant("alice", None, memory_id, aid, int(time.time()) - 1), key)
    answer = await app_client.get("/artifacts/download", params={"token": expired})
    assert answer.status_code == 403 and "expired" in answer.json()["message"]

    await app_client.delete(f"/memory/{memory_id}/artifacts/{aid}", headers=ALICE)
    assert (await app_client.get(url)).status_code == 404


async def test_deleting_an_artifact_or_its_memory_removes_the_files(
    app_client: httpx.AsyncClient,
):
    memory_id = await new_memory(app_client)
    ids = []
    for name in ("one.txt", "two.txt"):
        ids.append((await attach(app_client, memory_id, filename=name, content=name)).json())
    first, second = (i["artifact"]["id"] for i in ids)
    gone = await app_client.delete(f"/memory/{memory_id}/artifacts/{first}", headers=ALICE)
    assert gone.status_code == 200 and gone.json()["artifact_id"] == first
    assert not stored_path(app_client, "alice", memory_id, first).exists()
    again = await app_client.delete(f"/memory/{memory_id}/artifacts/{first}", headers=ALICE)
    assert again.status_code == 404
    listed = (await app_client.get(f"/memory/{memory_id}/artifacts", headers=ALICE)).json()
    assert [a["id"] for a in listed["artifacts"]] == [second]
    history = (await app_client.get(f"/memory/{memory_id}/history", headers=ALICE)).json()
    actions = [e["action"] for e in history["events"]]
    assert actions.count("artifact_add") == 2 and actions.count("artifact_delete") == 1

    await app_client.delete(f"/memory/{memory_id}", headers=ALICE)
    assert not stored_path(app_client, "alice", memory_id, second).parent.exists()

    erased_id = await new_memory(app_client)
    aid = (await attach(app_client, erased_id, filename="e.txt", content="e")).json()
    assert stored_path(app_client, "alice", erased_id, aid["artifact"]["id"]).exists()
    erased = await app_client.delete(
        f"/memory/{erased_id}", params={"erase": "true"}, headers=ALICE
    )
    assert erased.status_code == 200
    assert not stored_path(app_client, "alice", erased_id, aid["artifact"]["id"]).parent.exists()


async def test_concurrent_uploads_to_one_memory_are_all_kept(app_client: httpx.AsyncClient):
    memory_id = await new_memory(app_client)
    answers = await asyncio.gather(
        *(attach(app_client, memory_id, filename=f"{n}.txt", content=str(n)) for n in range(12))
    )
    assert all(a.status_code == 201 for a in answers), [a.text for a in answers]
    listed = (await app_client.get(f"/memory/{memory_id}/artifacts", headers=ALICE)).json()
    assert sorted(a["filename"] for a in listed["artifacts"]) == sorted(
        f"{n}.txt" for n in range(12)
    )


@pytest.mark.parametrize("memory_id", ["not-a-uuid"])
async def test_ids_must_be_uuids(app_client: httpx.AsyncClient, memory_id: str):
    answer = await app_client.get(f"/memory/{memory_id}/artifacts", headers=ALICE)
    assert answer.status_code == 400
    real = await new_memory(app_client)
    answer = await app_client.get(f"/memory/{real}/artifacts/../../x", headers=ALICE)
    assert answer.status_code in (400, 404)
