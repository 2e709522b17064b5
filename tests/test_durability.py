"""Durability on the embedded default: restart, and kill -9 of the FalkorDB server."""

from pathlib import Path

from tests.conftest import ALICE_KEY, auth, free_port, running_client, test_settings

H = auth(ALICE_KEY)


def embedded_settings(data_dir: Path, port: int):
    return test_settings(data_dir, falkordb_url=None, falkordb_port=port, falkordb_graph="engram")


async def test_restart_keeps_memories_revisions_and_indexes(tmp_path: Path):
    settings = embedded_settings(tmp_path, free_port())
    async with running_client(settings) as client:
        created = await client.post("/memory", json={"content": "v1", "tags": ["keep"]}, headers=H)
        memory_id = created.json()["memory_id"]
        await client.patch(f"/memory/{memory_id}", json={"content": "v2"}, headers=H)
        server = client.app.state.runtime.falkordb_server
        assert server is not None
    assert not server.pidfile.exists()  # stopped cleanly with Engram

    async with running_client(settings) as client:
        memory = (await client.get(f"/memory/{memory_id}", headers=H)).json()["memory"]
        assert (memory["content"], memory["version"]) == ("v2", 2)
        history = (await client.get(f"/memory/{memory_id}/history", headers=H)).json()
        assert [r["content"] for r in history["revisions"]] == ["v1"]
        indexes = await client.app.state.stores.graph.indexes()
        assert {i["status"] for i in indexes} == {"OPERATIONAL"}
        indexed = {(i["label"], p) for i in indexes for p in i["properties"]}
        assert {("Memory", "id"), ("Memory", "user_id"), ("Memory", "content")} <= indexed
        by_tag = (await client.get("/memory/by-tag", params={"tags": "keep"}, headers=H)).json()
        assert by_tag["count"] == 1


async def test_acknowledged_write_survives_kill_9_of_falkordb(tmp_path: Path):
    settings = embedded_settings(tmp_path, free_port())
    async with running_client(settings) as client:
        created = await client.post("/memory", json={"content": "must survive"}, headers=H)
        assert created.status_code == 201
        memory_id = created.json()["memory_id"]
        client.app.state.runtime.falkordb_server.kill()  # right after the acknowledgement

        down = await client.get(f"/memory/{memory_id}", headers=H)
        assert down.status_code == 503
        assert down.json()["message"] == "FalkorDB is unavailable"
        health = (await client.get("/health")).json()
        assert health["degraded"] is True and health["falkordb"] == "disconnected"

    async with running_client(settings) as client:
        memory = (await client.get(f"/memory/{memory_id}", headers=H)).json()["memory"]
        assert memory["content"] == "must survive"
