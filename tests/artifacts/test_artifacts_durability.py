"""An acknowledged artifact upload survives kill -9 of the embedded FalkorDB server: its file
was fsynced before the answer, and its listing is a graph write like any other."""

from pathlib import Path

from tests.conftest import ALICE_KEY, auth, free_port, running_client, test_settings

H = auth(ALICE_KEY)


async def test_an_acknowledged_upload_survives_kill_9(tmp_path: Path):
    settings = test_settings(
        tmp_path, falkordb_url=None, falkordb_port=free_port(), falkordb_graph="engram"
    )
    async with running_client(settings) as client:
        memory_id = (await client.post("/memory", json={"content": "m"}, headers=H)).json()
        memory_id = memory_id["memory_id"]
        body = {"filename": "keep.txt", "content": "must survive"}
        created = await client.post(f"/memory/{memory_id}/artifacts", json=body, headers=H)
        assert created.status_code == 201
        artifact_id = created.json()["artifact"]["id"]
        client.app.state.runtime.falkordb_server.kill()  # type: ignore[attr-defined]

    async with running_client(settings) as client:
        url = f"/memory/{memory_id}/artifacts/{artifact_id}"
        page = (await client.get(url, headers=H)).json()
        assert page["content"] == "must survive"
