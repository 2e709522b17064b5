"""Erasure reaches the disk (issue 34): after a user's or a memory's erasure no file of the data
directory, no Redis key and no job record holds the erased text, with the embedded stores
(FalkorDB's AOF, its query log, saq's job records, the Edge shard's WAL and segments)."""

import asyncio
from pathlib import Path
from typing import Any

import httpx
import redis.asyncio as redis

from app.storage import file_scan
from app.storage.falkordb.server import EmbeddedFalkorDB
from tests.conftest import ADMIN_KEY, BOB_KEY, auth, free_port, running_client, test_settings

BOB, ADMIN = auth(BOB_KEY), auth(ADMIN_KEY)
STORED = "Bob is training for the Berlin marathon in September"
TOLD = "I keep my spare house key under the blue flowerpot"
KEPT = "Bob prefers sparkling water with lemon"


def embedded(data_dir: Path) -> Any:
    return test_settings(
        data_dir,
        falkordb_url=None,
        falkordb_port=free_port(),
        falkordb_graph="engram",
        workers=1,
        enrichment_enabled=False,
    )


async def remember_as_bob(client: httpx.AsyncClient) -> None:
    stored = await client.post("/memory", json={"content": STORED}, headers=BOB)
    assert stored.status_code == 201, stored.text
    told = await client.post(
        "/remember",
        json={"session_id": "run-club", "messages": [{"role": "user", "content": TOLD}]},
        headers=BOB,
    )
    assert told.status_code == 202, told.text  # its job record holds the turn, run or not


async def redis_values(url: str) -> bytes:
    """Every key with its value, read by type (the graph's through Cypher)."""
    client = redis.from_url(url)
    parts: list[bytes] = []
    try:
        async for key in client.scan_iter(count=1000):
            kind = (await client.type(key)).decode()
            parts.append(key + b"=" + repr(await read_value(client, key, kind)).encode())
    finally:
        await client.aclose()
    return b"\n".join(parts)


async def read_value(client: redis.Redis, key: bytes, kind: str) -> Any:
    if kind == "string":
        return await client.get(key)
    if kind == "hash":
        return await client.hgetall(key)
    if kind == "list":
        return await client.lrange(key, 0, -1)
    if kind == "set":
        return await client.smembers(key)
    if kind == "zset":
        return await client.zrange(key, 0, -1)
    if kind == "stream":
        return await client.xrange(key)
    if kind == "graphdata":
        return await client.execute_command("GRAPH.RO_QUERY", key, EVERYTHING)
    assert kind == "none", f"{key!r} of type {kind} is not read"  # expired meanwhile
    return None


EVERYTHING = "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN labels(n), properties(n), properties(r)"


def assert_nowhere(found: bytes, *texts: str) -> None:
    for text in texts:
        assert text.encode() not in found, text


async def test_a_users_erasure_leaves_no_file_and_no_key_holding_their_text(tmp_path: Path):
    settings = embedded(tmp_path)
    async with running_client(settings) as client:
        await remember_as_bob(client)
        url = client.app.state.runtime.falkordb_server.url
        before = file_scan.search(tmp_path, [STORED, TOLD])
        assert not before.clean  # the check can see them: WAL, segments, AOF
        assert TOLD.encode() in await redis_values(url)  # the /remember job's record

        response = await client.delete("/admin/users/bob", headers=ADMIN)
        assert response.status_code == 200, response.text
        report = response.json()
        assert report["disk"]["clean"] is True and report["disk"]["checked_files"] > 0
        assert report["disk"]["clean_at"] and report["vectors_rewritten"]
        assert report["log_rewritten"] and report["job_records_deleted"] >= 2

        assert_nowhere(await redis_values(url), STORED, TOLD)
        await asyncio.sleep(2)  # FalkorDB writes its query log a second late: none is written
        async with redis.from_url(url) as raw:
            assert not await raw.exists("telemetry{engram}")
        assert file_scan.search(tmp_path, [STORED, TOLD]).clean

    assert file_scan.search(tmp_path, [STORED, TOLD]).clean  # after a clean stop too
    server = EmbeddedFalkorDB(tmp_path / "falkordb", free_port())
    try:  # what the files load is what they hold, however Redis encoded it
        assert_nowhere(await redis_values(await server.start()), STORED, TOLD)
    finally:
        await server.stop()


async def test_a_memorys_erasure_reaches_the_disk_and_keeps_the_rest(tmp_path: Path):
    async with running_client(embedded(tmp_path)) as client:
        erased = (await client.post("/memory", json={"content": STORED}, headers=BOB)).json()
        kept = (await client.post("/memory", json={"content": KEPT}, headers=BOB)).json()
        assert not file_scan.search(tmp_path, [STORED]).clean

        response = await client.delete(f"/admin/memories/{erased['memory_id']}", headers=ADMIN)
        assert response.status_code == 200, response.text
        assert response.json()["disk"]["clean"] is True
        assert file_scan.search(tmp_path, [STORED]).clean
        assert not file_scan.search(tmp_path, [KEPT]).clean
        vectors = client.app.state.stores.vectors
        assert set(await vectors.retrieve([kept["memory_id"], erased["memory_id"]])) == {
            kept["memory_id"]
        }
        found = await client.get("/recall", params={"query": "sparkling water"}, headers=BOB)
        assert kept["memory_id"] in {r["id"] for r in found.json()["results"]}


async def test_a_users_own_erasure_answers_with_the_disk_report(tmp_path: Path):
    async with running_client(embedded(tmp_path)) as client:
        erased = (await client.post("/memory", json={"content": STORED}, headers=BOB)).json()
        assert not file_scan.search(tmp_path, [STORED]).clean

        response = await client.delete(
            f"/memory/{erased['memory_id']}", params={"erase": "true"}, headers=BOB
        )
        assert response.status_code == 200, response.text
        report = response.json()["disk"]
        assert report["clean"] is True and report["checked_files"] > 0 and report["clean_at"]
        assert file_scan.search(tmp_path, [STORED]).clean
