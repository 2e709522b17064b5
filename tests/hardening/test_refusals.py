"""Issue row 10: every refusal to start says what is wrong and the command that fixes it, and
following the command works."""

import asyncio
import shlex
import socket
import time
from pathlib import Path

import pytest

from app.refusals import StartupRefused, embedded_falkordb_failed, without_credentials
from app.runtime import start_runtime
from app.storage.falkordb.server import EmbeddedFalkorDB
from tests.conftest import ALICE_KEY, auth, free_port, running_client, test_settings

H = auth(ALICE_KEY)


async def test_a_corrupt_shard_says_how_to_recover_and_the_recovery_works(tmp_path: Path):
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=free_port(), enrichment_enabled=False
    )
    async with running_client(settings) as client:
        body = {"memories": [{"content": f"Alice's note {i}"} for i in range(12)]}
        assert (await client.post("/memory/batch", json=body, headers=H)).status_code == 201
    for part in (tmp_path / "qdrant").rglob("*.json"):
        part.write_text("not json")

    with pytest.raises(StartupRefused) as refused:
        await start_runtime(settings)
    message = str(refused.value)
    assert "the vector index at" in message and "cannot be opened" in message
    command = message.split("To fix: ")[1].split("`")[1]  # mv <shard> <shard>.broken
    assert command.startswith("mv ")
    source, target = (Path(p) for p in shlex.split(command)[1:])
    source.rename(target)  # what the operator runs

    workers = {"workers": 1, "jobs_sweep_s": 1, "jobs_base_delay_s": 0.2}
    async with running_client(settings.model_copy(update=workers)) as client:
        deadline = time.monotonic() + 90
        while (await client.app.state.stores.vectors.count(None)) < 12:
            assert time.monotonic() < deadline, "the sync did not rebuild the points"
            await asyncio.sleep(0.3)
        found = await client.post("/recall", json={"query": "Alice's note 7"}, headers=H)
        assert found.json()["results"]


async def test_a_taken_port_names_the_setting(tmp_path: Path):
    port = free_port()
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        server = EmbeddedFalkorDB(data_dir=tmp_path, port=port)
        with pytest.raises(StartupRefused) as refused:
            await server.start()
    assert f"port {port}" in refused.value.what
    assert f"FALKORDB_PORT={port + 1}" in refused.value.fix


async def test_a_port_held_by_another_data_dirs_server_is_refused_not_adopted(tmp_path: Path):
    port = free_port()
    other = EmbeddedFalkorDB(data_dir=tmp_path / "other", port=port)
    await other.start()
    try:
        mine = EmbeddedFalkorDB(data_dir=tmp_path / "mine", port=port)
        with pytest.raises(StartupRefused) as refused:
            await mine.start()
        assert f"port {port}" in refused.value.what
        assert f"FALKORDB_PORT={port + 1}" in refused.value.fix
        assert other.running()
    finally:
        await other.stop()


async def test_an_unreachable_falkordb_url_is_waited_for_then_refused(tmp_path: Path):
    url = f"redis://engram:s3cret@127.0.0.1:{free_port()}"
    settings = test_settings(tmp_path, falkordb_url=url, falkordb_connect_wait_s=1)
    with pytest.raises(StartupRefused) as refused:
        await start_runtime(settings)
    assert "did not answer within 1 s" in refused.value.what
    assert "FALKORDB_URL" in refused.value.fix
    assert "s3cret" not in str(refused.value)


async def test_a_falkordb_that_starts_late_is_waited_for(tmp_path: Path):
    server = EmbeddedFalkorDB(data_dir=tmp_path / "falkordb", port=free_port())

    async def start_late() -> None:
        await asyncio.sleep(1.5)
        await server.start()

    late = asyncio.create_task(start_late())
    settings = test_settings(tmp_path / "engram", falkordb_url=server.url)
    try:
        runtime = await start_runtime(settings)
        await runtime.stop()
    finally:
        await late
        await server.stop()


async def test_no_api_key_says_which_setting(tmp_path: Path, falkordb_url: str):
    settings = test_settings(
        tmp_path, falkordb_url=falkordb_url, api_keys={}, admin_key=None, generate_local_key=False
    )
    with pytest.raises(StartupRefused) as refused:
        await start_runtime(settings)
    assert "ENGRAM_API_KEYS" in refused.value.fix


@pytest.mark.parametrize(
    ("log_tail", "fix"),
    [
        ("# Bad file format reading the append only file appendonly.aof.1.incr.aof", "restore"),
        ("# Module /x/falkordb.so failed to load: it does not exist.", "make install"),
        ("# something else entirely", "read "),
    ],
)
def test_embedded_server_failures_name_their_fix(log_tail: str, fix: str, tmp_path: Path):
    refused = embedded_falkordb_failed("redis://127.0.0.1:6380", 6380, log_tail, tmp_path / "r.log")
    assert fix in refused.fix
    assert str(refused).startswith("Engram cannot start: ")


def test_credentials_never_reach_a_message():
    assert without_credentials("redis://u:p@h:1/0") == "redis://***@h:1/0"
    assert without_credentials("redis://h:1") == "redis://h:1"
