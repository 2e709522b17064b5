"""fsck and artifacts: missing and corrupt files are reported; files no memory lists (older than
the grace period) are swept by `apply`."""

import os
import time
from pathlib import Path

import httpx

from app.storage.artifacts.files import owner_dir
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, running_client, test_settings

ALICE, ADMIN = auth(ALICE_KEY), auth(ADMIN_KEY)


async def memory_with(client: httpx.AsyncClient, *names: str) -> tuple[str, list[str]]:
    created = await client.post("/memory", json={"content": f"files {names}"}, headers=ALICE)
    memory_id = created.json()["memory_id"]
    ids = []
    for name in names:
        answer = await client.post(
            f"/memory/{memory_id}/artifacts",
            json={"filename": name, "content": name},
            headers=ALICE,
        )
        ids.append(answer.json()["artifact"]["id"])
    return memory_id, ids


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


async def test_fsck_reports_missing_and_corrupt_files_and_sweeps_orphans(
    falkordb_url: str, tmp_path: Path
):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    folder = tmp_path / "artifacts" / owner_dir("alice")
    async with running_client(settings) as client:
        kept, (missing, corrupt) = await memory_with(client, "a.txt", "b.txt")
        (folder / kept / missing).unlink()
        (folder / kept / corrupt).write_bytes(b"changed")

        orphaned, (old,) = await memory_with(client, "c.txt")
        # A path that deletes the node and leaves the files (or a crash before listing them).
        graph = client.app.state.stores.graph  # type: ignore[attr-defined]
        await graph.query("MATCH (m:Memory {id: $id}) DETACH DELETE m", {"id": orphaned})
        age(folder / orphaned / old, 7200)
        _, (young,) = await memory_with(client, "d.txt")
        (folder / kept / "00000000-0000-4000-8000-000000000001").write_bytes(b"in flight")
        unlisted = folder / kept / "00000000-0000-4000-8000-000000000002"
        unlisted.write_bytes(b"a crash before it was listed")
        age(unlisted, 7200)

        report = (await client.post("/admin/fsck", json={}, headers=ADMIN)).json()
        assert report["counts"].get("missing_artifact") == 1
        assert report["counts"].get("corrupt_artifact") == 1
        assert report["counts"].get("orphan_artifact") == 2
        issues = {
            i["type"]: i for i in report["issues"] if i["safe"] or i["type"] != "orphan_artifact"
        }
        assert missing in issues["missing_artifact"]["detail"]
        assert corrupt in issues["corrupt_artifact"]["detail"]
        assert issues["orphan_artifact"]["ids"] == [orphaned]

        users = (await client.post("/admin/fsck", json={}, headers=ALICE)).json()
        assert "orphan_artifact" not in users["counts"]  # the sweep is the admin's, over all

        applied = await client.post("/admin/fsck", json={"apply": True}, headers=ADMIN)
        assert applied.json()["counts"]["orphan_artifact"] == 2
        assert not (folder / orphaned).exists()
        # A person decides about those: the memory is live (a recovered one may want it back).
        assert (folder / kept / corrupt).exists() and unlisted.exists()
        again = (await client.post("/admin/fsck", json={}, headers=ADMIN)).json()
        assert again["counts"]["orphan_artifact"] == 1
        assert young  # listed, so never an orphan
