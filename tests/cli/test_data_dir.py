"""`--data-dir`: commands on a stopped embedded data directory (Engram is started on it for the
command: its own FalkorDB server and Qdrant Edge shard)."""

import json
import os
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner, Result

from app.cli import cli, embedded
from app.cli.errors import CliError
from app.storage.data_dir_lock import claim_data_dir
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
    assert "`engram restore --force`" in again.output  # the CLI's own flag, not only the API's


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


def data_dir_run(data_dir: Path, *args: str, **env: str) -> Result:
    variables = {**EMBEDDED, "ENGRAM_URL": "", **env}
    return CliRunner().invoke(cli, ["--data-dir", str(data_dir), *args], env=variables)


def test_a_data_dir_records_its_embedding_and_refuses_others_in_one_line(tmp_path: Path):
    data_dir = tmp_path / "data"
    made = data_dir_run(data_dir, "--json", "status")
    assert made.exit_code == 0, made.output
    recorded = json.loads((data_dir / embedded.RECORD).read_text())
    assert (recorded["provider"], recorded["dimension"]) == ("hash", 8)

    refused = data_dir_run(data_dir, "status", EMBEDDING_DIMENSIONS="16")
    assert refused.exit_code == 1
    message = refused.output.strip()
    assert len(message.splitlines()) == 1, message
    assert "made with hash" in message and "16-d" in message
    assert "EMBEDDING_PROVIDER=hash EMBEDDING_DIMENSIONS=8" in message
    assert "already running" not in message


def test_a_server_that_does_not_start_says_why_in_one_line(tmp_path: Path, capfd):
    data_dir = tmp_path / "data"
    assert data_dir_run(data_dir, "status").exit_code == 0
    (data_dir / embedded.RECORD).unlink()  # made before the record: the server's own check
    refused = data_dir_run(data_dir, "status", EMBEDDING_DIMENSIONS="16")
    assert refused.exit_code == 1
    message = refused.output.strip()
    assert len(message.splitlines()) == 1, message
    assert "stores 8-d dense vectors" in message and "already running" not in message
    assert "Traceback" not in capfd.readouterr().err  # nothing of the server's log leaks
