"""Artifacts in backup/restore and export/import, on real stores: the files come back byte for
byte, listed on their memories; archives and exports without artifacts still load."""

import base64
import io
import json
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.storage.artifacts.files import owner_dir
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, running_client, test_settings

ALICE, ADMIN = auth(ALICE_KEY), auth(ADMIN_KEY)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))


@pytest.fixture
async def source(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with running_client(test_settings(tmp_path / "s", falkordb_url=falkordb_url)) as c:
        yield c


@pytest.fixture
async def target(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with running_client(test_settings(tmp_path / "t", falkordb_url=falkordb_url)) as c:
        yield c


async def memory_with_files(client: httpx.AsyncClient) -> tuple[str, dict[str, bytes]]:
    created = await client.post("/memory", json={"content": "the quarterly report"}, headers=ALICE)
    memory_id = created.json()["memory_id"]
    files = {}
    for body, data in (
        ({"filename": "notes.md", "content": "# Notes\nship it"}, b"# Notes\nship it"),
        ({"filename": "chart.png", "content_base64": base64.b64encode(PNG).decode()}, PNG),
    ):
        answer = await client.post(f"/memory/{memory_id}/artifacts", json=body, headers=ALICE)
        files[answer.json()["artifact"]["id"]] = data
    return memory_id, files


async def contents(client: httpx.AsyncClient, memory_id: str) -> dict[str, bytes]:
    listed = await client.get(f"/memory/{memory_id}/artifacts", headers=ALICE)
    found = {}
    for artifact in listed.json()["artifacts"]:
        url = f"/memory/{memory_id}/artifacts/{artifact['id']}"
        answer = await client.get(url, params={"encoding": "base64"}, headers=ALICE)
        body = answer.json()
        found[artifact["id"]] = (
            body["content"].encode()
            if "content" in body
            else base64.b64decode(body["content_base64"])
        )
    return found


def parts_of(archive: bytes) -> dict:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        return json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]


async def test_backup_and_restore_carry_the_files(
    source: httpx.AsyncClient, target: httpx.AsyncClient
):
    memory_id, files = await memory_with_files(source)
    archive = (await source.get("/backup", headers=ADMIN)).content
    manifest = parts_of(archive)
    assert "artifacts/files.jsonl" in manifest["parts"]
    assert manifest["counts"]["artifacts"] == 2 and manifest["counts"]["artifacts_missing"] == 0

    restored = await target.post("/admin/restore", content=archive, headers=ADMIN)
    assert restored.status_code == 200, restored.text
    report = restored.json()
    assert report["verified"] and report["artifacts_restored"] == 2
    assert report["mismatched_artifacts"] == []
    assert await contents(target, memory_id) == files

    fsck = (await target.post("/admin/fsck", json={}, headers=ADMIN)).json()
    assert not {"missing_artifact", "corrupt_artifact", "orphan_artifact"} & set(fsck["counts"])


async def test_a_backup_without_artifacts_has_no_such_part_and_restores(
    source: httpx.AsyncClient, target: httpx.AsyncClient
):
    await source.post("/memory", json={"content": "no files here"}, headers=ALICE)
    archive = (await source.get("/backup", headers=ADMIN)).content
    assert "artifacts/files.jsonl" not in parts_of(archive)["parts"]  # as older backups are
    kept, _ = await memory_with_files(target)
    forced = await target.post(
        "/admin/restore", content=archive, params={"force": "true"}, headers=ADMIN
    )
    assert forced.status_code == 200 and forced.json()["artifacts_restored"] == 0
    folder = target.app.state.runtime.settings.data_dir / "artifacts" / owner_dir("alice")  # type: ignore[attr-defined]
    assert not (folder / kept).exists()  # replaced with everything else


async def test_export_and_import_carry_the_files(
    source: httpx.AsyncClient, target: httpx.AsyncClient
):
    memory_id, files = await memory_with_files(source)
    exported = await source.get("/admin/export", headers=ADMIN)
    lines = [json.loads(line) for line in exported.content.splitlines()]
    assert sum("artifact" in line for line in lines) == 2
    mine = await source.get("/me/export", headers=ALICE)
    assert sum(b'"artifact": ' in line for line in mine.content.splitlines()) == 2

    imported = await target.post("/admin/import", content=exported.content, headers=ADMIN)
    assert imported.status_code == 200, imported.text
    assert imported.json()["imported"] == 1 and imported.json()["artifacts"] == 2
    assert await contents(target, memory_id) == files


async def test_an_export_line_whose_file_is_missing_drops_that_artifact(
    source: httpx.AsyncClient, target: httpx.AsyncClient
):
    memory_id, files = await memory_with_files(source)
    exported = (await source.get("/admin/export", headers=ADMIN)).content.splitlines()
    dropped = next(i for i, line in enumerate(exported) if b'"artifact": ' in line)
    kept_lines = [line for i, line in enumerate(exported) if i != dropped]
    body = b"\n".join(kept_lines) + b"\n"
    imported = await target.post("/admin/import", content=body, headers=ADMIN)
    assert imported.json()["artifacts"] == 1
    listed = (await target.get(f"/memory/{memory_id}/artifacts", headers=ALICE)).json()
    assert listed["count"] == 1

    forged = json.loads(kept_lines[-1]) if b'"artifact": ' in kept_lines[-1] else None
    assert forged is not None
    forged["artifact"]["content_base64"] = base64.b64encode(b"other bytes").decode()
    refused = await target.post(
        "/admin/import", content=json.dumps(forged).encode() + b"\n", headers=ADMIN
    )
    assert refused.status_code == 400 and "sha256" in refused.json()["message"]
