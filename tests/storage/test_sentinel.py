"""High availability on real servers: a FalkorDB primary with replicas and three Redis Sentinels
(bench/sentinel_cluster.py); Engram connects through the sentinels (FALKORDB_SENTINELS).

The primary is SIGKILLed under Engram: requests meanwhile are 503, never 500; Engram follows the
failover by itself; with FALKORDB_WAIT_REPLICAS=1 every acknowledged write is still there after
it. A write that reaches too few replicas is a 503 `not_replicated` and shows in /health, and a
retry with its Idempotency-Key finishes it without writing it twice.
"""

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.refusals import StartupRefused
from app.runtime import start_runtime
from bench.sentinel_cluster import SentinelCluster
from tests.conftest import ALICE_KEY, BOB_KEY, auth, free_port, running_client, test_settings

pytestmark = pytest.mark.integration
RETRIES = 300  # each 0.2 s apart: the failover takes a few seconds
RETRY_PAUSE_S = 0.2


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[SentinelCluster]:
    servers = SentinelCluster(tmp_path / "cluster", replicas=2)
    try:
        await servers.start()
        yield servers
    finally:
        servers.stop()


def _through(cluster: SentinelCluster, tmp_path: Path, **overrides: object) -> Settings:
    return test_settings(
        tmp_path / "engram", falkordb_sentinels=cluster.sentinel_addresses, **overrides
    )


async def _store(client: httpx.AsyncClient, content: str, key: str) -> httpx.Response:
    headers = {**auth(ALICE_KEY), "Idempotency-Key": key}
    return await client.post("/memory", json={"content": content}, headers=headers)


async def _store_until_acknowledged(
    client: httpx.AsyncClient, content: str, key: str
) -> tuple[str, list[int]]:
    """Retries one write (same Idempotency-Key) until it is acknowledged; its id and the
    statuses of the attempts before."""
    refused: list[int] = []
    for _ in range(RETRIES):
        answer = await _store(client, content, key)
        if answer.status_code == 201:
            return answer.json()["memory_id"], refused
        refused.append(answer.status_code)
        await asyncio.sleep(RETRY_PAUSE_S)
    raise AssertionError(f"never acknowledged; statuses {sorted(set(refused))}")


async def test_engram_follows_a_failover_and_keeps_every_acknowledged_write(
    cluster: SentinelCluster, tmp_path: Path
) -> None:
    settings = _through(cluster, tmp_path, falkordb_wait_replicas=1)
    async with running_client(settings) as client:
        acknowledged = {}
        for index in range(20):
            answer = await _store(client, f"fact {index} before the failover", f"before-{index}")
            assert answer.status_code == 201, answer.text
            acknowledged[answer.json()["memory_id"]] = f"fact {index} before the failover"

        old_primary = await cluster.kill_primary()
        memory_id, refused = await _store_until_acknowledged(
            client, "the first fact after the failover", f"after-{uuid.uuid4()}"
        )
        acknowledged[memory_id] = "the first fact after the failover"

        assert refused and set(refused) <= {503}, refused  # an outage is a 503, never a 500
        assert await cluster.primary_port() != old_primary
        for memory_id, content in acknowledged.items():
            read = await client.get(f"/memory/{memory_id}", headers=auth(ALICE_KEY))
            assert read.status_code == 200, read.text
            assert read.json()["memory"]["content"] == content
        # tenancy holds on the promoted primary as on any server
        other = await client.get(f"/memory/{memory_id}", headers=auth(BOB_KEY))
        assert other.status_code == 404
        # connected again once the watch has seen the new primary and its replica caught up
        assert await _health_settles(client) == "connected"


async def _health_settles(client, within_s: float = 60.0) -> str:
    """/health's falkordb state once it is "connected", or the last one seen after `within_s`."""
    deadline = asyncio.get_running_loop().time() + within_s
    while True:
        state = (await client.get("/health")).json()["falkordb"]
        if state == "connected" or asyncio.get_running_loop().time() > deadline:
            return state
        await asyncio.sleep(0.5)


async def test_a_write_short_of_its_replicas_is_a_503_and_its_retry_writes_once(
    tmp_path: Path,
) -> None:
    servers = SentinelCluster(tmp_path / "cluster", replicas=1, sentinels=0)
    try:
        await servers.start()
        primary, replica = servers.data
        settings = test_settings(
            tmp_path / "engram",
            falkordb_url=f"redis://127.0.0.1:{primary.port}",
            falkordb_wait_replicas=1,
            falkordb_wait_timeout_ms=200,
        )
        async with running_client(settings) as client:
            replica.kill()
            short = await _store(client, "written while the replica is gone", "while-gone")
            assert short.status_code == 503, short.text
            assert short.json()["error"] == "not_replicated"
            assert "reached 0 of 1 replica" in short.json()["message"]
            health = (await client.get("/health")).json()
            assert health["falkordb"] == "degraded"
            assert "0 of 1 replica" in health["stores"]["falkordb"]["last_error"]

            replica.start()
            await servers.wait_for_replicas(primary.port, 1)
            retried = await _store(client, "written while the replica is gone", "while-gone")
            assert retried.status_code == 201, retried.text
            assert retried.headers.get("Idempotent-Replayed") == "true"
            listed = await client.get("/memory", headers=auth(ALICE_KEY))
            contents = [m["content"] for m in listed.json()["memories"]]
            assert contents.count("written while the replica is gone") == 1
            assert (await client.get("/health")).json()["falkordb"] == "connected"
    finally:
        servers.stop()


async def test_sentinels_that_do_not_answer_are_waited_for_then_refused(tmp_path: Path) -> None:
    sentinels = [("127.0.0.1", free_port()), ("127.0.0.1", free_port())]
    settings = test_settings(tmp_path, falkordb_sentinels=sentinels, falkordb_connect_wait_s=1)
    with pytest.raises(StartupRefused) as refused:
        await start_runtime(settings)
    assert "did not answer within 1 s" in refused.value.what
    assert f"127.0.0.1:{sentinels[1][1]}" in refused.value.what
    assert "FALKORDB_SENTINELS" in refused.value.fix
