"""`engram backup` and `engram restore` against listening servers with the real stores."""

import json
import tarfile
from pathlib import Path

import httpx
import pytest
from redis import Redis

from app.cli.errors import FAILED
from tests.cli.conftest import LiveServer, start_live_server
from tests.conftest import ALICE_KEY, test_settings

ALICE = {"Authorization": f"Bearer {ALICE_KEY}"}


def test_backup_then_restore_into_an_empty_server(
    live_server: LiveServer, falkordb_url: str, tmp_path: Path
) -> None:
    stored = httpx.post(
        f"{live_server.url}/memory", json={"content": "Backed up by the CLI"}, headers=ALICE
    )
    assert stored.status_code == 201, stored.text
    out = tmp_path / "engram.tar.gz"
    result = live_server.run("backup", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Backup written" in result.output and "Memory" in result.output
    with tarfile.open(out, "r:gz") as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())
    assert manifest["counts"]["memories"] >= 1
    assert not out.with_name(out.name + ".partial").exists()

    empty, thread = start_live_server(test_settings(tmp_path / "empty", falkordb_url=falkordb_url))
    try:
        restored = empty.run("--json", "restore", str(out))
        assert restored.exit_code == 0, restored.output
        assert json.loads(restored.stdout)["verified"] is True
        memory_id = stored.json()["memory_id"]
        got = httpx.get(f"{empty.url}/memory/{memory_id}", headers=ALICE)
        assert got.json()["memory"]["content"] == "Backed up by the CLI"

        again = empty.run("restore", str(out))
        assert again.exit_code == FAILED and "not empty" in again.output
        forced = empty.run("restore", "--force", str(out))
        assert forced.exit_code == 0, forced.output
        assert "verified" in forced.output
    finally:
        thread.stop()


def test_restore_refuses_a_file_that_is_not_a_backup(
    live_server: LiveServer, tmp_path: Path
) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not an archive")
    result = live_server.run("restore", str(junk))
    assert result.exit_code == FAILED and "not an Engram backup" in result.output


@pytest.mark.parametrize("include", ["falkordb", "falkordb,qdrant"])
def test_backup_json_summary_names_the_parts(
    live_server: LiveServer, tmp_path: Path, include: str
) -> None:
    out = tmp_path / "b.tar.gz"
    result = live_server.run("--json", "backup", "--out", str(out), "--include", include)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert ("qdrant/vectors.jsonl" in summary["manifest"]["parts"]) == ("qdrant" in include)
    assert summary["bytes"] == out.stat().st_size


def test_recover_from_vectors_after_the_graph_is_lost(falkordb_url: str, tmp_path: Path) -> None:
    server, thread = start_live_server(test_settings(tmp_path, falkordb_url=falkordb_url))
    try:
        stored = httpx.post(
            f"{server.url}/memory", json={"content": "Recovered by the CLI"}, headers=ALICE
        )
        assert stored.status_code == 201
        refused = server.run("recover-from-vectors")
        assert refused.exit_code == FAILED and "never replaces" in refused.output
        graph = server.settings.falkordb_graph
        redis = Redis.from_url(falkordb_url)
        try:
            redis.execute_command("GRAPH.QUERY", graph, "MATCH (m:Memory) DETACH DELETE m")
        finally:
            redis.close()
        result = server.run("--json", "recover-from-vectors")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["recovered"] == 1
        got = httpx.get(f"{server.url}/memory/{stored.json()['memory_id']}", headers=ALICE)
        assert got.json()["memory"]["content"] == "Recovered by the CLI"
        assert "Recovery from vectors" in server.run("recover-from-vectors", "--force").output
    finally:
        thread.stop()
