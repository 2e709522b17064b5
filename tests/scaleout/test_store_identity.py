"""Every process checks that it opened its deployment's vector store; one that opened another
refuses to start with a reason, instead of taking jobs whose vectors its API never reads."""

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from app.runtime import start_runtime
from app.storage.deployment import (
    Opened,
    StoreMismatch,
    check_identity,
    vector_store_identity,
)
from tests.conftest import test_settings

ROOT = Path(__file__).resolve().parents[2]


async def started(settings) -> str:
    runtime = await start_runtime(settings, with_keyring=False)
    try:
        assert runtime.deployment_id
        return runtime.deployment_id
    finally:
        await runtime.stop()


async def test_a_process_with_another_vector_store_refuses_to_start(
    falkordb_url: str, tmp_path: Path
):
    graph = f"test_{uuid.uuid4().hex[:12]}"
    first = test_settings(tmp_path / "api", falkordb_url=falkordb_url, falkordb_graph=graph)
    deployment = await started(first)
    assert await started(first) == deployment  # a restart finds its own shard

    other_shard = test_settings(tmp_path / "other", falkordb_url=falkordb_url, falkordb_graph=graph)
    with pytest.raises(StoreMismatch) as refused:
        await start_runtime(other_shard, with_keyring=False)
    message = str(refused.value)
    assert deployment in message and "QDRANT_URL" in message and "edge:" in message

    private = test_settings(
        tmp_path / "mem", falkordb_url=falkordb_url, falkordb_graph=graph, qdrant_url=":memory:"
    )
    with pytest.raises(StoreMismatch, match="opened the vector store memory:"):
        await start_runtime(private, with_keyring=False)


async def test_adopting_a_new_vector_store_is_explicit(falkordb_url: str, tmp_path: Path):
    graph = f"test_{uuid.uuid4().hex[:12]}"
    old = test_settings(tmp_path / "old", falkordb_url=falkordb_url, falkordb_graph=graph)
    deployment = await started(old)
    moved = test_settings(
        tmp_path / "new", falkordb_url=falkordb_url, falkordb_graph=graph, adopt_vector_store=True
    )
    assert await started(moved) == deployment  # the same deployment, its new vector store
    with pytest.raises(StoreMismatch):  # and now the old one is the stranger
        await start_runtime(old, with_keyring=False)


async def test_a_new_shard_where_the_deployment_s_was_is_adopted(falkordb_url: str, tmp_path: Path):
    graph = f"test_{uuid.uuid4().hex[:12]}"
    shard = tmp_path / "qdrant"
    before = vector_store_identity(None, "memories", shard)
    assert before.new and vector_store_identity(None, "memories", shard) == Opened(before.identity)
    now = "2026-01-01T00:00:00Z"
    first, replaced = await check_identity(falkordb_url, graph, before, adopt=False, now=now)
    assert replaced is None
    shutil.rmtree(shard)  # lost with its directory: the same place, a new shard
    remade = vector_store_identity(None, "memories", shard)
    again, replaced = await check_identity(falkordb_url, graph, remade, adopt=False, now=now)
    assert (again.deployment_id, replaced) == (first.deployment_id, before.identity)

    (shard / "engram-store-id").write_text("another-shard\n")  # not new, not the recorded one
    stranger = vector_store_identity(None, "memories", shard)
    with pytest.raises(StoreMismatch):
        await check_identity(falkordb_url, graph, stranger, adopt=False, now=now)


def test_a_qdrant_server_is_named_by_its_url_and_collection():
    same = {
        vector_store_identity("http://Qdrant:6333/", "memories", Path("/unused")),
        vector_store_identity("http://qdrant", "memories", Path("/unused")),
    }
    assert same == {Opened("qdrant:http://qdrant:6333/memories")}
    assert vector_store_identity("http://qdrant:6333", "other", Path("/unused")) != same.pop()
    assert vector_store_identity("https://q.example", "m", Path("/x")).identity.endswith(":443/m")


async def test_the_worker_process_refuses_with_a_reason(falkordb_url: str, tmp_path: Path):
    graph = f"test_{uuid.uuid4().hex[:12]}"
    await started(test_settings(tmp_path / "api", falkordb_url=falkordb_url, falkordb_graph=graph))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "FALKORDB_URL": falkordb_url,
        "FALKORDB_GRAPH": graph,
        "QDRANT_URL": ":memory:",  # a vector store of its own
        "ENGRAM_DATA_DIR": str(tmp_path / "worker"),
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
        "ENGRAM_LOG_FORMAT": "text",
    }
    done = subprocess.run(
        [sys.executable, "-m", "app.worker"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "refusing to start: This process opened the vector store memory:" in done.stderr
