"""Artifacts on an S3-compatible store (ARTIFACT_S3_BUCKET), end to end over HTTP on real stores
and a real S3 server: the same API as on the filesystem, nothing of them on the local disk, and
deletes, erasure, search and backups reaching the bucket."""

import base64
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from app.storage.artifacts.files import INDEX_SUFFIX
from tests.artifacts.test_artifacts import PNG, attach, new_memory
from tests.conftest import ADMIN_KEY, ALICE_KEY, BOB_KEY, auth, running_client, test_settings
from tests.s3_server import S3Server, s3_server

ALICE, BOB, ADMIN = auth(ALICE_KEY), auth(BOB_KEY), auth(ADMIN_KEY)


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture
async def bucket_app(
    s3: S3Server, falkordb_url: str, tmp_path: Path
) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    bucket = s3.new_bucket()
    settings = test_settings(tmp_path / "s3", falkordb_url=falkordb_url, **s3.settings(bucket))
    async with running_client(settings) as client:
        yield client, bucket


async def test_the_api_is_the_same_and_the_bytes_live_in_the_bucket(bucket_app, s3, tmp_path):
    client, bucket = bucket_app
    memory_id = await new_memory(client)
    text = await attach(client, memory_id, filename="notes.md", content="# Notes\nship it")
    image = await attach(
        client, memory_id, filename="chart.png", content_base64=base64.b64encode(PNG).decode()
    )
    assert text.status_code == 201 and image.status_code == 201, (text.text, image.text)
    text_id, image_id = text.json()["artifact"]["id"], image.json()["artifact"]["id"]

    keys = s3.keys(bucket)
    assert [k for k in keys if k.endswith((text_id, image_id))] and all(
        memory_id in k for k in keys if k.endswith((text_id, image_id))
    )
    assert not list((tmp_path / "s3" / "artifacts").rglob(text_id))

    page = await client.get(f"/memory/{memory_id}/artifacts/{text_id}", headers=ALICE)
    assert page.json()["content"] == "# Notes\nship it"
    raw = await client.get(f"/memory/{memory_id}/artifacts/{image_id}", headers=ALICE)
    assert raw.status_code == 200 and raw.content == PNG
    assert raw.headers["content-disposition"] == 'attachment; filename="chart.png"'
    assert raw.headers["content-security-policy"] == "sandbox"
    link = await client.post(f"/memory/{memory_id}/artifacts/{image_id}/url", headers=ALICE)
    downloaded = await client.get(link.json()["url"].replace("http://engram", ""))
    assert downloaded.status_code == 200 and downloaded.content == PNG

    assert (await client.get(f"/memory/{memory_id}/artifacts", headers=BOB)).status_code == 404
    path = f"/memory/{memory_id}/artifacts/{image_id}"
    assert (await client.get(path, headers=BOB)).status_code == 404

    assert (await client.delete(path, headers=ALICE)).status_code == 200
    assert not [k for k in s3.keys(bucket) if image_id in k]
    assert (await client.delete(f"/memory/{memory_id}", headers=ALICE)).status_code == 200
    assert not [k for k in s3.keys(bucket) if memory_id in k]


async def test_erasure_and_search_indexes_reach_the_bucket(bucket_app, s3):
    client, bucket = bucket_app
    memory_id = await new_memory(client)
    created = await attach(client, memory_id, filename="plan.txt", content="the launch plan " * 50)
    artifact_id = created.json()["artifact"]["id"]
    found = await client.post(
        "/recall", json={"query": "launch plan", "include_artifacts": True}, headers=ALICE
    )
    assert found.json()["artifacts"]["searched"] == 1, found.text
    assert [k for k in s3.keys(bucket) if k.endswith(artifact_id + INDEX_SUFFIX)]

    erased = await client.delete(f"/memory/{memory_id}", params={"erase": "true"}, headers=ALICE)
    assert erased.status_code == 200, erased.text
    assert not [k for k in s3.keys(bucket) if memory_id in k]


async def test_a_backup_from_the_bucket_restores_onto_the_filesystem(
    bucket_app, falkordb_url, tmp_path
):
    client, _ = bucket_app
    memory_id = await new_memory(client)
    await attach(
        client, memory_id, filename="chart.png", content_base64=base64.b64encode(PNG).decode()
    )
    archive = (await client.get("/backup", headers=ADMIN)).content
    fsck = (await client.post("/admin/fsck", json={}, headers=ADMIN)).json()
    assert not {"missing_artifact", "corrupt_artifact", "orphan_artifact"} & set(fsck["counts"])

    target_settings = test_settings(tmp_path / "fs", falkordb_url=falkordb_url)
    async with running_client(target_settings) as target:
        restored = await target.post("/admin/restore", content=archive, headers=ADMIN)
        assert restored.status_code == 200, restored.text
        assert restored.json()["artifacts_restored"] == 1
        (artifact,) = (await target.get(f"/memory/{memory_id}/artifacts", headers=ALICE)).json()[
            "artifacts"
        ]
        raw = await target.get(f"/memory/{memory_id}/artifacts/{artifact['id']}", headers=ALICE)
        assert raw.content == PNG
