"""Artifacts end to end over HTTP on real stores: upload (JSON and multipart), list, read in
pages, download, signed URLs, limits and checks, tenancy, and what deleting does to the files."""

import asyncio
import base64
import hashlib
import json
import time
import uuid
from pathlib import Path

import httpx
import pytest

from app.artifacts.checks import safe_filename
from app.artifacts.links import Grant, sign
from app.main import create_app
from app.storage.artifacts.files import owner_dir
from tests.conftest import (
    ADMIN_KEY,
    AGENT_KEY,
    ALICE_KEY,
    BOB_KEY,
    auth,
    running_client,
    test_settings,
)
from tests.live import live_server

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)
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
    alice_key_id = hashlib.sha256(ALICE_KEY.encode()).hexdigest()[:8]
    expired = sign(Grant("alice", None, memory_id, aid, int(time.time()) - 1, alice_key_id), key)
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


NOT_MEDIA_TYPES = [
    "text/plain\r\nX-Injected: 1",
    "text/plain\x0b",
    "text/plain\n",
    'text/plain; charset="a\rb"',
    "text /plain",
    "text",
    "text/plain; charset",
]


@pytest.mark.parametrize("declared", NOT_MEDIA_TYPES)
async def test_a_content_type_that_is_not_a_media_type_is_refused(
    app_client: httpx.AsyncClient, declared: str
):
    """Issue 41, item 4: a JSON upload kept CR/LF/VT in its type (201), and every download of
    it then broke; JSON and multipart uploads now answer 400 naming content_type."""
    memory_id = await new_memory(app_client)
    as_json = await attach(
        app_client, memory_id, filename="a.txt", content_type=declared, content="x"
    )
    as_form = await app_client.post(
        f"/memory/{memory_id}/artifacts",
        files={"file": ("a.txt", b"x", "text/plain")},
        data={"content_type": declared},
        headers=ALICE,
    )
    for answer in (as_json, as_form):
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "bad_request"
        assert "Invalid content_type" in answer.json()["message"]
    listed = (await app_client.get(f"/memory/{memory_id}/artifacts", headers=ALICE)).json()
    assert listed["count"] == 0


async def test_a_part_whose_own_type_is_not_a_media_type_is_refused(app_client: httpx.AsyncClient):
    memory_id = await new_memory(app_client)
    answer = await app_client.post(
        f"/memory/{memory_id}/artifacts",
        files={"file": ("a.txt", b"x", "text/plain\x0bx")},
        headers=ALICE,
    )
    assert answer.status_code == 400 and "Invalid content_type" in answer.json()["message"]
    with_parameters = await attach(
        app_client,
        memory_id,
        filename="n.md",
        content_type='Text/Markdown ; charset="utf-8"',
        content="# notes",
    )
    assert with_parameters.status_code == 201, with_parameters.text
    assert with_parameters.json()["artifact"]["content_type"] == "text/markdown"


async def test_a_stored_type_that_is_not_a_media_type_is_served_as_bytes(
    falkordb_url: str, tmp_path: Path
):
    """A record stored before types were checked: its signed URL still downloads (over a real
    HTTP server, whose header writer refused the bad value and dropped the connection), as
    application/octet-stream, and fsck names it."""
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    app = create_app(settings)
    async with live_server(settings, app) as base, httpx.AsyncClient(base_url=base) as client:
        created = await client.post("/memory", json={"content": "legacy"}, headers=ALICE)
        memory_id = created.json()["memory_id"]
        meta = (await attach(client, memory_id, filename="r.txt", content="report")).json()
        stored = [{**meta["artifact"], "content_type": "text/plain\r\nX-Injected: 1\x0b"}]
        await app.state.stores.graph.query(
            "MATCH (m:Memory {id: $id}) SET m.artifacts = $artifacts",
            {"id": memory_id, "artifacts": json.dumps(stored)},
        )
        aid = meta["artifact"]["id"]
        made = await client.post(f"/memory/{memory_id}/artifacts/{aid}/url", headers=ALICE)
        assert made.status_code == 200, made.text
        downloaded = await client.get(made.json()["url"])
        assert downloaded.status_code == 200 and downloaded.content == b"report"
        assert downloaded.headers["content-type"] == "application/octet-stream"
        assert "x-injected" not in downloaded.headers

        report = (await client.post("/admin/fsck", json={}, headers=ALICE)).json()
        assert report["counts"].get("bad_artifact_type") == 1
        issue = next(i for i in report["issues"] if i["type"] == "bad_artifact_type")
        assert issue["ids"] == [memory_id] and aid in issue["detail"]


async def raw_request(app: object, method: str, path: str) -> tuple[int, dict]:
    """One request to the ASGI app with its path exactly as given (httpx resolves dot segments
    before sending, as most clients do; curl --path-as-is does not)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"engram"), (b"authorization", f"Bearer {ALICE_KEY}".encode())],
        "server": ("engram", 80),
        "client": ("127.0.0.1", 50000),
    }
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)  # type: ignore[operator]
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body)


async def test_an_artifact_id_that_is_a_dot_segment_is_refused_as_sent(
    app_client: httpx.AsyncClient,
):
    """A raw `/memory/M/artifacts/..` is the artifact route, which refuses the id before any
    store is reached; the memory stays."""
    memory_id = await new_memory(app_client)
    for method, suffix in (("GET", ""), ("DELETE", ""), ("POST", "/url")):
        path = f"/memory/{memory_id}/artifacts/..{suffix}"
        status, body = await raw_request(app_client.app, method, path)  # type: ignore[attr-defined]
        assert status == 400, (method, body)
        assert body["message"] == "artifact_id must be a valid UUID"
    assert (await app_client.get(f"/memory/{memory_id}", headers=ALICE)).status_code == 200


def respelled(token: str) -> list[str]:
    """The token with its signature (or payload) spelled otherwise: characters base64 decoding
    may skip, padding, and a spare bit of the last character set (the same bytes, decoded
    leniently)."""
    payload, signature = token.split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet[alphabet.index(signature[-1]) ^ 1]  # 32 bytes: 43 characters, 2 spare bits
    return [
        f"{payload}.{signature[:10]}!!{signature[10:]}",
        f"{payload}.{signature}=",
        f"{payload}.{signature[:10]}={signature[10:]}",
        f"{payload}.{signature[:-1]}{last}",
        f"{payload}=.{signature}",
        f"{payload[:4]}!!{payload[4:]}.{signature}",
    ]


async def test_a_signature_is_read_only_as_written(app_client: httpx.AsyncClient):
    """Issue 41, item 7: a signed URL verified with '!!' or '=' inserted into its signature."""
    memory_id = await new_memory(app_client)
    aid = (await attach(app_client, memory_id, filename="r.txt", content="report")).json()
    made = await app_client.post(
        f"/memory/{memory_id}/artifacts/{aid['artifact']['id']}/url", headers=ALICE
    )
    token = made.json()["url"].split("token=", 1)[1]
    ok = await app_client.get("/artifacts/download", params={"token": token})
    assert ok.status_code == 200
    for variant in respelled(token):
        answer = await app_client.get("/artifacts/download", params={"token": variant})
        assert answer.status_code == 403, variant
        assert answer.json()["message"] == "This download link is not valid"


async def test_a_signed_url_stops_working_when_its_key_is_revoked(app_client: httpx.AsyncClient):
    """Issue 41, item 7: a URL made with a runtime key kept working for up to 7 days after
    the key was revoked."""
    made_key = await app_client.post("/admin/keys", json={"user_id": "alice"}, headers=ADMIN)
    assert made_key.status_code == 201, made_key.text
    key = auth(made_key.json()["api_key"])
    memory_id = await new_memory(app_client, key)
    aid = (await attach(app_client, memory_id, key, filename="r.txt", content="report")).json()
    path = f"/memory/{memory_id}/artifacts/{aid['artifact']['id']}/url"
    url = (await app_client.post(path, json={"expires_in": 7 * 86_400}, headers=key)).json()["url"]
    by_alice = (await app_client.post(path, headers=ALICE)).json()["url"]
    assert (await app_client.get(url)).status_code == 200

    revoked = await app_client.delete(f"/admin/keys/{made_key.json()['key_id']}", headers=ADMIN)
    assert revoked.status_code == 200, revoked.text
    answer = await app_client.get(url)
    assert answer.status_code == 403 and "revoked" in answer.json()["message"]
    assert (await app_client.get(by_alice)).status_code == 200  # another key's link stays
