"""Where AutoMem's clients expect its answers: /admin/reembed's 200, `?api_key=`, CORS.

The first test mirrors AutoMem's own integration test `test_admin_reembed_real`
(tests/test_integration.py): its suite cannot be fetched here, so its expectations are
restated from docs/automem.md §4.14 and that test's steps.
"""

import logging
from pathlib import Path

import pytest

from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, running_client, test_settings

FAST_JOBS = {"workers": 2, "jobs_base_delay_s": 0.2, "jobs_max_delay_s": 1.0, "jobs_sweep_s": 1}
AUTOMEM_ADMIN = auth(ALICE_KEY) | {"X-Admin-Token": ADMIN_KEY}


async def test_admin_reembed_answers_200_like_automem(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, **FAST_JOBS)
    async with running_client(settings) as client:
        created = await client.post(
            "/memory",
            json={"content": "Memory for re-embedding", "importance": 0.6},
            headers=auth(ALICE_KEY),
        )
        assert created.status_code == 201
        answer = await client.post(
            "/admin/reembed", json={"limit": 1, "batch_size": 1}, headers=AUTOMEM_ADMIN
        )
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["status"] == "complete" and body["metadata_preserved"] is True
        counts = (body["processed"], body["failed"], body["total"], body["batch_size"])
        assert counts == (1, 0, 1, 1)
        assert body["job_id"].startswith("reembed:")
        again = await client.post(
            "/admin/reembed", json={"limit": 1, "batch_size": 1}, headers=AUTOMEM_ADMIN
        )
        assert again.status_code == 200 and again.json()["embedded"] == 1  # not a stale result
        memory_id = created.json()["memory_id"]
        deleted = await client.delete(f"/memory/{memory_id}", headers=auth(ALICE_KEY))
        assert deleted.status_code == 200


async def test_a_large_store_or_wait_false_gets_the_job(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, reembed_sync_max=2, **FAST_JOBS)
    async with running_client(settings) as client:
        items = [{"content": f"item {i}"} for i in range(3)]
        await client.post("/memory/batch", json={"memories": items}, headers=auth(ALICE_KEY))
        admin = auth(ADMIN_KEY)
        large = await client.post("/admin/reembed", json={}, headers=admin)
        assert large.status_code == 202 and large.json()["status"] == "queued"
        small = await client.post("/admin/reembed", json={"limit": 2}, headers=admin)
        assert small.status_code == 200 and small.json()["total"] == 2
        told = await client.post("/admin/reembed?wait=false", json={"limit": 2}, headers=admin)
        assert told.status_code == 202 and told.json()["job_id"] == small.json()["job_id"]
        asked = await client.post("/admin/reembed?wait=true", json={"force": False}, headers=admin)
        assert asked.status_code == 200 and asked.json()["total"] == 3


async def test_a_job_not_done_within_the_wait_is_answered_202(falkordb_url: str, tmp_path: Path):
    # No worker in this process: the job waits for one, and the call answers with it.
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, reembed_wait_s=0.3)
    async with running_client(settings) as client:
        answer = await client.post("/admin/reembed?wait=true", json={}, headers=auth(ADMIN_KEY))
        assert answer.status_code == 202 and answer.json()["job_id"].startswith("reembed:")


async def test_query_api_key_only_when_allowed_and_never_logged(
    falkordb_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    path = f"/memory/by-tag?tags=x&api_key={ALICE_KEY}"
    off = test_settings(tmp_path / "off", falkordb_url=falkordb_url)
    async with running_client(off) as client:
        assert (await client.get(path)).status_code == 401
    on = test_settings(tmp_path / "on", falkordb_url=falkordb_url, allow_query_api_key=True)
    async with running_client(on) as client:
        with caplog.at_level(logging.DEBUG):
            assert (await client.get(path)).status_code == 200
            wrong = await client.get("/memory/by-tag?tags=x&api_key=nope")
            assert wrong.status_code == 401
            header_first = await client.get(path, headers=auth("bad-key"))
            assert header_first.status_code == 401  # a header key wins over the query's
    # The test's own client (httpx) logs its URLs; Engram's processes keep httpx at WARNING.
    engram = [r for r in caplog.records if r.name != "httpx"]
    access = [r for r in engram if r.name == "engram.access"]
    assert access and all(ALICE_KEY not in r.getMessage() for r in engram)
    assert all(ALICE_KEY not in str(vars(r)) for r in access)


async def test_cors_preflight_from_a_browser(falkordb_url: str, tmp_path: Path):
    preflight = {
        "Origin": "http://viewer.test",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, x-agent-id",
    }
    settings = test_settings(
        tmp_path, falkordb_url=falkordb_url, cors_origins=["http://viewer.test"]
    )
    async with running_client(settings) as client:
        allowed = await client.options("/recall", headers=preflight)
        assert allowed.status_code == 200
        assert allowed.headers["access-control-allow-origin"] == "http://viewer.test"
        assert "x-agent-id" in allowed.headers["access-control-allow-headers"].lower()
        other = await client.options("/recall", headers=preflight | {"Origin": "http://evil.test"})
        assert other.status_code == 400 and "access-control-allow-origin" not in other.headers
        refused = await client.get("/recall?query=x", headers={"Origin": "http://viewer.test"})
        assert refused.status_code == 401  # the browser may read the refusal
        assert refused.headers["access-control-allow-origin"] == "http://viewer.test"
    plain = test_settings(tmp_path / "plain", falkordb_url=falkordb_url)
    async with running_client(plain) as client:
        answer = await client.options("/recall", headers=preflight)
        assert "access-control-allow-origin" not in answer.headers
