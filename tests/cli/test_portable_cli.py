"""`engram export` and `engram import` against listening servers with the real stores,
including AutoMem's backup archive and graph dump."""

import gzip
import io
import json
import tarfile
from pathlib import Path

import httpx

from app.cli.errors import FAILED
from tests.cli.conftest import LiveServer, start_live_server
from tests.conftest import ALICE_KEY, test_settings
from tests.ops.test_portable import AUTOMEM_ID, AUTOMEM_OTHER

ALICE = {"Authorization": f"Bearer {ALICE_KEY}"}
AUTOMEM_DUMP = {
    "timestamp": "20250301_120000",
    "graph_name": "memories",
    "nodes": [
        {
            "id": 0,
            "labels": ["Memory"],
            "properties": {
                "id": AUTOMEM_ID,
                "content": "Chose PostgreSQL for billing",
                "type": "Decision",
                "timestamp": "2025-03-04T10:00:00+00:00",
                "importance": 0.8,
                "tags": ["billing"],
                "metadata": '{"source": "slack"}',
            },
        },
        {
            "id": 1,
            "labels": ["Memory"],
            "properties": {
                "id": AUTOMEM_OTHER,
                "content": "Billing migrations run with Alembic",
                "timestamp": "2025-03-05T10:00:00+00:00",
                "metadata": "{}",
            },
        },
        {"id": 2, "labels": ["Pattern"], "properties": {"type": "Decision", "id": "p1"}},
    ],
    "relationships": [
        {"source_id": 0, "type": "RELATES_TO", "target_id": 1, "properties": {"strength": 0.5}},
        {"source_id": 0, "type": "EXEMPLIFIES", "target_id": 2, "properties": {}},
    ],
    "stats": {"node_count": 3, "relationship_count": 2},
}


def test_export_then_import_into_another_server(
    live_server: LiveServer, falkordb_url: str, tmp_path: Path
) -> None:
    stored = httpx.post(
        f"{live_server.url}/memory", json={"content": "Exported by the CLI"}, headers=ALICE
    )
    assert stored.status_code == 201
    out = tmp_path / "memories.jsonl"
    result = live_server.run("--json", "export", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["memories"] == len(out.read_text().splitlines()) >= 1

    other, thread = start_live_server(test_settings(tmp_path / "other", falkordb_url=falkordb_url))
    try:
        imported = other.run("--json", "import", str(out))
        assert imported.exit_code == 0, imported.output
        assert json.loads(imported.stdout)["imported"] >= 1
        memory_id = stored.json()["memory_id"]
        got = httpx.get(f"{other.url}/memory/{memory_id}", headers=ALICE)
        assert got.json()["memory"]["content"] == "Exported by the CLI"
        again = other.run("import", str(out))
        assert again.exit_code == 0 and "duplicate_ids" in again.output
    finally:
        thread.stop()


def test_import_reads_automems_backup_archive_and_dump(
    live_server: LiveServer, tmp_path: Path
) -> None:
    data = gzip.compress(json.dumps(AUTOMEM_DUMP).encode())
    archive = tmp_path / "automem-backup-20250301_120000.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        member = tarfile.TarInfo("falkordb/falkordb_20250301_120000.json.gz")
        member.size = len(data)
        tar.addfile(member, io.BytesIO(data))
    refused = live_server.run("import", str(archive))
    assert refused.exit_code == FAILED and "pass user_id" in refused.output

    result = live_server.run("--json", "import", str(archive), "--user", "alice")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["source_format"] == "automem" and report["imported"] == 2
    assert report["links"] == 1
    memory = httpx.get(f"{live_server.url}/memory/{AUTOMEM_ID}", headers=ALICE).json()["memory"]
    assert memory["type"] == "Decision" and memory["metadata"]["source"] == "slack"

    dump = tmp_path / "falkordb_20250301_120000.json"
    dump.write_text(json.dumps(AUTOMEM_DUMP))
    again = live_server.run("--json", "import", str(dump), "--user", "alice")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["duplicate_ids"] == 2
