"""API keys made at runtime (/admin/keys) on the real stores: a key made by the admin acts as its
user at once, stays inside that user's memories, is refused once revoked (in this process at
once, in another after its revision poll), survives a restart and a backup, and is never
listed, stored or logged in plain text."""

import hashlib
import io
import logging
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.storage.falkordb.server import EmbeddedFalkorDB
from app.storage.graph import api_keys
from app.storage.graph.store import GraphStore
from tests.conftest import (
    ADMIN_KEY,
    ALICE_KEY,
    BOB_KEY,
    auth,
    free_port,
    running_client,
    test_settings,
)

ADMIN, ALICE, BOB = auth(ADMIN_KEY), auth(ALICE_KEY), auth(BOB_KEY)


@pytest.fixture
async def client(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, max_keys_per_user=3)
    async with running_client(settings) as running:
        yield running


async def make_key(client: httpx.AsyncClient, **body: object) -> dict:
    made = await client.post("/admin/keys", json=body, headers=ADMIN)
    assert made.status_code == 201, made.text
    return made.json()


async def store(client: httpx.AsyncClient, headers: dict, content: str) -> str:
    stored = await client.post("/memory", json={"content": content}, headers=headers)
    assert stored.status_code == 201, stored.text
    return stored.json()["memory_id"]


async def test_a_made_key_writes_and_reads_as_its_user_and_only_its_user(
    client: httpx.AsyncClient,
):
    made = await make_key(client, user_id="alice", label="alice's laptop")
    assert made["api_key"].startswith("engram_") and made["user_id"] == "alice"
    assert made["admin"] is False and made["revoked_at"] is None
    assert made["created_by"].startswith("admin/key:")
    key = auth(made["api_key"])

    mine = await store(client, key, "Alice keeps her bike in the shed")
    assert (await client.get(f"/memory/{mine}", headers=ALICE)).status_code == 200
    got = await client.get(f"/memory/{mine}", headers=key)
    assert got.status_code == 200 and got.json()["memory"]["content"].startswith("Alice keeps")
    history = (await client.get(f"/memory/{mine}/history", headers=key)).json()
    assert history["events"][0]["actor"] == f"user:alice/key:{made['key_id']}"

    bobs = await store(client, BOB, "Bob's private plans")
    assert (await client.get(f"/memory/{bobs}", headers=key)).status_code == 404
    assert (await client.get(f"/memory/{mine}", headers=BOB)).status_code == 404
    recalled = await client.get("/recall", params={"query": "private plans"}, headers=key)
    assert bobs not in [r["id"] for r in recalled.json()["results"]]
    assert (await client.get("/admin/keys", headers=key)).status_code == 403


async def test_an_agent_bound_key_stays_in_its_agent_scope(client: httpx.AsyncClient):
    made = await make_key(client, user_id="alice", agent_prefix="openwebui")
    inside = await client.get("/core", headers=auth(made["api_key"], "openwebui:helper"))
    assert inside.status_code == 200
    outside = await client.get("/core", headers=auth(made["api_key"], "other-agent"))
    assert outside.status_code == 403 and "openwebui" in outside.json()["message"]


async def test_only_the_admin_key_manages_keys(client: httpx.AsyncClient):
    made = await make_key(client, user_id="bob")
    for headers in (ALICE, auth(made["api_key"])):
        assert (
            await client.post("/admin/keys", json={"user_id": "alice"}, headers=headers)
        ).status_code == 403
        assert (await client.get("/admin/keys", headers=headers)).status_code == 403
        revoking = await client.delete(f"/admin/keys/{made['key_id']}", headers=headers)
        assert revoking.status_code == 403
    assert (await client.get("/admin/keys")).status_code == 401
    wrong = await client.get("/admin/keys", headers=auth("engram_not-a-key-of-anyone"))
    assert wrong.status_code == 401 and wrong.json()["error"] == "unauthorized"


async def test_bad_requests_name_what_is_wrong_and_write_nothing(client: httpx.AsyncClient):
    for body, field in (
        ({}, "user_id"),
        ({"user_id": ""}, "user_id"),
        ({"user_id": "al\x01ice"}, "user_id"),
        ({"user_id": "a" * 201}, "user_id"),
        ({"user_id": "alice", "admin": True}, "admin"),
        ({"user_id": "alice", "agent_prefix": "has space"}, "agent_prefix"),
        ({"user_id": "alice", "label": "x" * 201}, "label"),
    ):
        answer = await client.post("/admin/keys", json=body, headers=ADMIN)
        assert answer.status_code == 400, (body, answer.text)
        assert answer.json()["status"] == "error" and field in answer.json()["message"]
    assert (await client.get("/admin/keys", headers=ADMIN)).json()["keys"] == []
    unknown = await client.delete("/admin/keys/0123456789abcdef", headers=ADMIN)
    assert unknown.status_code == 404 and "0123456789abcdef" in unknown.json()["message"]
    for not_a_key in ("not-an-id", "nope"):  # as docs/api.md says: an unknown id is a 404
        answer = await client.delete(f"/admin/keys/{not_a_key}", headers=ADMIN)
        assert answer.status_code == 404 and answer.json()["error"] == "not_found", answer.text
    assert (await client.delete(f"/admin/keys/{'a' * 65}", headers=ADMIN)).status_code == 400
    for params in ({"cursor": "0123456789abcdef"}, {"limit": 0}, {"limit": 501}):
        assert (await client.get("/admin/keys", params=params, headers=ADMIN)).status_code == 400


async def test_revoked_keys_are_refused_at_once_and_listed_only_on_request(
    client: httpx.AsyncClient,
):
    made = await make_key(client, user_id="alice")
    key = auth(made["api_key"])
    assert (await client.get("/core", headers=key)).status_code == 200  # now cached
    revoked = await client.delete(f"/admin/keys/{made['key_id']}", headers=ADMIN)
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    refused = await client.get("/core", headers=key)
    assert refused.status_code == 401 and refused.json()["error"] == "unauthorized"
    again = await client.delete(f"/admin/keys/{made['key_id']}", headers=ADMIN)
    assert again.status_code == 200 and again.json()["revoked_at"] == revoked.json()["revoked_at"]
    assert (await client.get("/admin/keys", headers=ADMIN)).json()["keys"] == []
    listed = await client.get("/admin/keys", params={"include_revoked": True}, headers=ADMIN)
    assert [k["key_id"] for k in listed.json()["keys"]] == [made["key_id"]]


async def test_keys_per_user_are_bounded_and_listed_in_pages(client: httpx.AsyncClient):
    made = [await make_key(client, user_id="carol", label=f"key {n}") for n in range(3)]
    full = await client.post("/admin/keys", json={"user_id": "carol"}, headers=ADMIN)
    assert full.status_code == 409 and "ENGRAM_MAX_KEYS_PER_USER" in full.json()["message"]
    await make_key(client, user_id="dave")  # another user's count is its own
    await client.delete(f"/admin/keys/{made[0]['key_id']}", headers=ADMIN)
    made.append(await make_key(client, user_id="carol"))

    seen, cursor = [], None
    while True:
        params = {"user_id": "carol", "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/admin/keys", params=params, headers=ADMIN)).json()
        seen += [k["key_id"] for k in page["keys"]]
        if (cursor := page["next_cursor"]) is None:
            break
    assert seen == [k["key_id"] for k in made[1:]]


async def test_the_key_is_never_listed_stored_or_logged(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
):
    with caplog.at_level(logging.DEBUG):
        made = await make_key(client, user_id="alice", label="for the log test")
        key = made["api_key"]
        assert (await client.get("/core", headers=auth(key))).status_code == 200
        await client.delete(f"/admin/keys/{made['key_id']}", headers=ADMIN)
        assert (await client.get("/core", headers=auth(key))).status_code == 401
    assert caplog.records  # the access log ran
    assert not [r for r in caplog.records if key in r.getMessage()]
    listed = await client.get("/admin/keys", params={"include_revoked": True}, headers=ADMIN)
    assert made["key_id"] in listed.text and key not in listed.text
    assert "api_key" not in listed.json()["keys"][0]
    rows = await client.app.state.stores.graph.ro_query("MATCH (k:ApiKey) RETURN properties(k)")
    assert key not in str(rows) and rows[0][0]["digest"] == api_keys_digest(key)


def api_keys_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


async def test_a_seen_key_needs_no_graph_and_an_outage_refuses_only_unseen_keys(
    client: httpx.AsyncClient, tmp_path: Path
):
    seen, unseen = await make_key(client, user_id="alice"), await make_key(client, user_id="bob")
    keys = client.app.state.runtime.runtime_keys
    assert (await keys.authenticate(seen["api_key"])).user_id == "alice"
    server = EmbeddedFalkorDB(data_dir=tmp_path / "stopped", port=free_port())
    graph, keys.graph = keys.graph, GraphStore(await server.start(), "nowhere")
    await server.stop()
    try:  # the graph the keys are read from is down now: a look-up fails
        assert (await keys.authenticate(seen["api_key"])).key_id == seen["key_id"]
        assert await keys.authenticate(unseen["api_key"]) is None
        await keys.refresh()  # the poll fails quietly and keeps what is cached
        await keys.flush_last_used()  # kept for the next flush
        assert (await keys.authenticate(seen["api_key"])).key_id == seen["key_id"]
    finally:
        await keys.graph.close()
        keys.graph = graph
    assert (await keys.authenticate(unseen["api_key"])).user_id == "bob"  # not cached as unknown
    await keys.flush_last_used()
    stored = await api_keys.get_key(graph, seen["key_id"])
    assert stored is not None and stored.last_used_at is not None


async def test_last_use_is_recorded_in_batches(client: httpx.AsyncClient):
    made = await make_key(client, user_id="alice")
    assert (await client.get("/core", headers=auth(made["api_key"]))).status_code == 200
    await client.app.state.runtime.runtime_keys.flush_last_used()
    stored = await api_keys.get_key(client.app.state.stores.graph, made["key_id"])
    assert stored is not None and stored.last_used_at is not None


async def test_a_revocation_reaches_another_process_after_its_poll(
    falkordb_url: str, tmp_path: Path
):
    first = test_settings(tmp_path / "one", falkordb_url=falkordb_url)
    second = test_settings(
        tmp_path / "two",
        falkordb_url=falkordb_url,
        falkordb_graph=first.falkordb_graph,
        adopt_vector_store=True,
        keys_refresh_s=300,  # polled by hand below: no timing in the test
    )
    async with running_client(first) as one, running_client(second) as two:
        made = await make_key(one, user_id="alice")
        key = auth(made["api_key"])
        assert (await two.get("/core", headers=key)).status_code == 200  # found on a miss
        assert (await one.delete(f"/admin/keys/{made['key_id']}", headers=ADMIN)).is_success
        assert (await one.get("/core", headers=key)).status_code == 401
        # The other process still trusts its cache until it polls the ring's revision.
        assert (await two.get("/core", headers=key)).status_code == 200
        await two.app.state.runtime.runtime_keys.refresh()
        assert (await two.get("/core", headers=key)).status_code == 401


async def test_keys_survive_a_restart(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    async with running_client(settings) as before:
        made = await make_key(before, user_id="alice")
        memory = await store(before, auth(made["api_key"]), "Written before the restart")
    async with running_client(settings) as after:
        got = await after.get(f"/memory/{memory}", headers=auth(made["api_key"]))
        assert got.status_code == 200


async def test_a_backup_holds_the_keys_as_digests_and_a_restore_brings_them_back(
    falkordb_url: str, tmp_path: Path
):
    source = test_settings(tmp_path / "source", falkordb_url=falkordb_url)
    target = test_settings(tmp_path / "target", falkordb_url=falkordb_url)
    async with running_client(source) as one:
        kept = await make_key(one, user_id="alice")
        gone = await make_key(one, user_id="bob")
        await one.delete(f"/admin/keys/{gone['key_id']}", headers=ADMIN)
        archive = (await one.get("/backup", headers=ADMIN)).content
    for made in (kept, gone):
        assert made["api_key"].encode() not in archive_text(archive)
    assert api_keys_digest(kept["api_key"]).encode() in archive_text(archive)
    async with running_client(target) as two:
        assert (await two.get("/core", headers=auth(kept["api_key"]))).status_code == 401
        restored = await two.post("/admin/restore", content=archive, headers=ADMIN)
        assert restored.status_code == 200, restored.text
        # The target had remembered the key as unknown; the restore's revision empties that.
        await two.app.state.runtime.runtime_keys.refresh()
        assert (await two.get("/core", headers=auth(kept["api_key"]))).status_code == 200
        assert (await two.get("/core", headers=auth(gone["api_key"]))).status_code == 401


def archive_text(archive: bytes) -> bytes:
    """Every file of a backup archive, uncompressed, end to end."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        files = [tar.extractfile(member) for member in tar.getmembers() if member.isfile()]
        return b"".join(file.read() for file in files if file is not None)
