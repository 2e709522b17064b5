"""Maintenance commands over the server's jobs, against a listening server whose workers run
the jobs: reembed (with AutoMem's limit), sync, job, reprocess, fsck, migrate; and AutoMem's
admin headers."""

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.storage.graph.schema import discover
from tests.cli.conftest import LiveServer, start_live_server
from tests.conftest import ADMIN_KEY, ALICE_KEY, test_settings
from tests.memories.test_embedding_jobs import FAST_JOBS

ALICE = {"Authorization": f"Bearer {ALICE_KEY}"}


@pytest.fixture(scope="module")
def server(falkordb_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    settings = test_settings(
        tmp_path_factory.mktemp("maint"), falkordb_url=falkordb_url, **FAST_JOBS
    )
    live, thread = start_live_server(settings)
    items = [{"content": f"maintenance memory {i}"} for i in range(5)]
    stored = httpx.post(f"{live.url}/memory/batch", json={"memories": items}, headers=ALICE)
    assert stored.status_code == 201, stored.text
    try:
        yield live
    finally:
        thread.stop()


def test_reembed_honours_limit_and_shows_the_result(server: LiveServer) -> None:
    result = server.run("--json", "reembed", "--limit", "2", "--batch-size", "1")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["state"] == "done"
    assert report["progress"]["done"] == 2 and report["progress"]["total"] == 2
    table = server.run("reembed", "--user", "alice")
    assert table.exit_code == 0 and "done" in table.output


def test_automems_admin_headers_are_accepted(server: LiveServer) -> None:
    for header in ("X-Admin-Token", "X-Admin-Api-Key"):
        response = httpx.post(
            f"{server.url}/admin/reembed", json={"limit": 1}, headers={**ALICE, header: ADMIN_KEY}
        )
        assert response.status_code == 200, response.text  # small: AutoMem's synchronous answer
        assert response.json()["status"] == "complete"
    wrong = httpx.post(f"{server.url}/admin/reembed", json={}, headers={"X-Admin-Token": "no"})
    assert wrong.status_code == 401
    too_big = httpx.post(
        f"{server.url}/admin/reembed",
        json={"batch_size": 101},
        headers={"X-Admin-Token": ADMIN_KEY},
    )
    assert too_big.status_code == 400


def test_sync_then_follow_a_job_again(server: LiveServer) -> None:
    result = server.run("--json", "sync")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["result"]["checked_memories"] >= 5 and report["progress"]["done"] >= 5
    queued = server.run("--json", "sync", "--check", "--no-wait")
    assert queued.exit_code == 0, queued.output
    job_id = json.loads(queued.stdout)["job_id"]
    followed = server.run("job", job_id)
    assert followed.exit_code == 0 and "done" in followed.output
    assert server.run("job", "sync:nope").exit_code == 1


def test_reprocess_fsck_and_migrate(server: LiveServer) -> None:
    reprocessed = server.run("--json", "reprocess", "--user", "alice", "--limit", "2")
    assert reprocessed.exit_code == 0, reprocessed.output
    assert json.loads(reprocessed.stdout)["count"] == 2

    checked = server.run("--json", "fsck", "--user", "alice")
    report = json.loads(checked.stdout)
    unrepaired = sum(report["counts"].values()) > report["applied"]
    assert checked.exit_code == (1 if unrepaired else 0) and report["checked"] >= 5

    migrated = server.run("--json", "migrate")
    assert migrated.exit_code == 0, migrated.output
    schema = json.loads(migrated.stdout)
    assert schema["applied"] == [] and schema["level"] == discover()[-1][0]
    assert "Schema" in server.run("migrate").output


def test_index_vectors_reports_the_embedded_shard(server: LiveServer) -> None:
    built = server.run("--json", "index-vectors")
    assert built.exit_code == 0, built.output
    report = json.loads(built.stdout)
    assert report["engine"] == "edge" and report["built"] and report["points"] >= 5
    # Five small memories stay below Qdrant's indexing threshold: searched exactly.
    assert report["indexed_segments"] == 0 and report["segments"] >= 1
    assert "segments with HNSW" in server.run("index-vectors").output
    recalled = httpx.get(f"{server.url}/recall", params={"query": "maintenance"}, headers=ALICE)
    assert recalled.status_code == 200 and recalled.json()["count"] >= 1


def test_maintenance_needs_the_admin_key(server: LiveServer, tmp_path: Path) -> None:
    result = server.run("sync", admin_key=ALICE_KEY)
    assert result.exit_code == 4 and "admin key" in result.output
    assert server.run("index-vectors", admin_key=ALICE_KEY).exit_code == 4
