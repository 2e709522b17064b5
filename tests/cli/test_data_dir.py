"""`--data-dir`: commands on a stopped embedded data directory (Engram is started on it for the
command: its own FalkorDB server and Qdrant Edge shard)."""

import json
import os
from pathlib import Path

import httpx
import pytest

from app.cli import embedded
from app.cli.errors import CliError
from app.storage.ownership import claim_data_dir
from tests.cli.conftest import LiveServer
from tests.conftest import ALICE_KEY

ALICE = {"Authorization": f"Bearer {ALICE_KEY}"}
# The data directory's server embeds like the live test server.
EMBEDDED = {
    "EMBEDDING_PROVIDER": "hash",
    "EMBEDDING_DIMENSIONS": "8",
    "ENGRAM_GENERATE_LOCAL_KEY": "false",
}


def test_restore_into_an_empty_data_dir_then_read_it(
    live_server: LiveServer, tmp_path: Path
) -> None:
    stored = httpx.post(
        f"{live_server.url}/memory", json={"content": "Restored offline"}, headers=ALICE
    )
    assert stored.status_code == 201
    archive = tmp_path / "b.tar.gz"
    assert live_server.run("backup", "--out", str(archive)).exit_code == 0
    total = json.loads(live_server.run("--json", "status").stdout)["health"]["memory_count"]

    data_dir = tmp_path / "data"
    restored = live_server.run(
        "--data-dir", str(data_dir), "--json", "restore", str(archive), env=EMBEDDED
    )
    assert restored.exit_code == 0, restored.output
    report = json.loads(restored.stdout)
    assert report["verified"] and report["memories"] == total
    # The live test server runs no workers: nothing was embedded, so everything is queued.
    assert report["vectors_restored"] + report["queued_for_embedding"] == total

    status = live_server.run("--data-dir", str(data_dir), "--json", "status", env=EMBEDDED)
    assert status.exit_code == 0, status.output
    assert json.loads(status.stdout)["health"]["memory_count"] == total
    again = live_server.run("--data-dir", str(data_dir), "restore", str(archive), env=EMBEDDED)
    assert again.exit_code == 1 and "not empty" in again.output


def test_a_data_dir_in_use_names_its_server(tmp_path: Path):
    lock = claim_data_dir(tmp_path, port=8123, now="now")  # a running Engram holds it
    try:
        with pytest.raises(CliError) as refused:
            embedded.start(tmp_path)
        assert f"in use by the Engram running as pid {os.getpid()} (ENGRAM_PORT 8123)" in str(
            refused.value
        )
    finally:
        lock.release()
