"""The memory resource end to end over HTTP: store, get, patch, history, delete, by-tag, batch."""

import httpx

from tests.conftest import ALICE_KEY, auth

H = auth(ALICE_KEY)


async def create(client: httpx.AsyncClient, **body: object) -> dict:
    response = await client.post("/memory", json={"content": "a memory", **body}, headers=H)
    assert response.status_code == 201, response.text
    return response.json()


async def test_store_returns_automem_shape_and_get_reads_it_back(app_client: httpx.AsyncClient):
    created = await create(
        app_client,
        content="  Alice prefers green tea  ",
        tags=["drinks", "Project:Home/Kitchen"],
        importance="high",
        type="preference",
        metadata={"source": "chat"},
        labels={"project": "home", "reviewed": True},
        timestamp="2026-01-02T03:04:05+02:00",
    )
    assert created["status"] == "success"
    assert created["type"] == "Preference" and created["confidence"] == 0.9
    assert created["importance"] == 0.7 and created["version"] == 1
    assert created["qdrant"] == "stored" and created["previously_deleted"] is False
    assert created["timestamp"] == "2026-01-02T01:04:05.000000+00:00"

    response = await app_client.get(f"/memory/{created['memory_id']}", headers=H)
    assert response.status_code == 200
    memory = response.json()["memory"]
    assert memory["content"] == "Alice prefers green tea"
    assert memory["user_id"] == "alice"
    assert memory["tag_prefixes"] == ["drinks", "project", "project:home", "project:home/kitchen"]
    assert memory["labels"] == {"project": "home", "reviewed": True}
    assert memory["metadata"] == {"source": "chat"}
    assert memory["t_valid"] == memory["timestamp"]
    assert memory["embedding_status"] == "pending"
    assert memory["source"]["created_by"].startswith("user:alice/key:")


async def test_patch_keeps_previous_state_as_revision(app_client: httpx.AsyncClient):
    created = await create(app_client, content="Lives in Paris", tags=["home"])
    memory_id = created["memory_id"]

    response = await app_client.patch(
        f"/memory/{memory_id}", json={"content": "Lives in Berlin", "importance": 0.9}, headers=H
    )
    assert response.status_code == 200, response.text
    patched = response.json()
    assert patched["version"] == 2
    assert patched["memory"]["content"] == "Lives in Berlin"
    assert patched["memory"]["tags"] == ["home"]
    assert patched["memory"]["updated_at"] > created["updated_at"]

    history = (await app_client.get(f"/memory/{memory_id}/history", headers=H)).json()
    assert history["deleted"] is False
    assert [r["content"] for r in history["revisions"]] == ["Lives in Paris"]
    assert history["revisions"][0]["version"] == 1
    assert [(e["action"], e["version"]) for e in history["events"]] == [
        ("create", 1),
        ("update", 2),
    ]
    assert "content" in history["events"][1]["fields"]


async def test_patch_null_clears_validity_end_and_rejects_stale_version(
    app_client: httpx.AsyncClient,
):
    created = await create(app_client, t_invalid="2030-01-01T00:00:00Z")
    memory_id = created["memory_id"]
    cleared = await app_client.patch(f"/memory/{memory_id}", json={"t_invalid": None}, headers=H)
    assert cleared.status_code == 200
    assert cleared.json()["memory"]["t_invalid"] is None

    stale = await app_client.patch(
        f"/memory/{memory_id}", json={"importance": 0.1, "expected_version": 1}, headers=H
    )
    assert stale.status_code == 409
    assert "version 2" in stale.json()["message"]
    current = (await app_client.get(f"/memory/{memory_id}", headers=H)).json()["memory"]
    assert current["importance"] == 0.5 and current["version"] == 2


async def test_delete_hides_memory_and_leaves_tombstone(app_client: httpx.AsyncClient):
    created = await create(app_client, content="Temporary note", tags=["tmp"])
    memory_id = created["memory_id"]
    response = await app_client.delete(f"/memory/{memory_id}", headers=H)
    assert response.status_code == 200

    assert (await app_client.get(f"/memory/{memory_id}", headers=H)).status_code == 404
    assert (
        await app_client.patch(f"/memory/{memory_id}", json={"importance": 1}, headers=H)
    ).status_code == 404
    assert (await app_client.delete(f"/memory/{memory_id}", headers=H)).status_code == 404
    by_tag = (await app_client.get("/memory/by-tag", params={"tags": "tmp"}, headers=H)).json()
    assert by_tag["count"] == 0

    history = (await app_client.get(f"/memory/{memory_id}/history", headers=H)).json()
    assert history["deleted"] is True and history["current"] is None
    assert history["tombstone"]["actor"].startswith("user:alice")
    assert len(history["tombstone"]["content_hash"]) == 64
    assert [e["action"] for e in history["events"]] == ["create", "delete"]

    again = await create(app_client, content="temporary   NOTE")
    assert again["previously_deleted"] is True


async def test_by_tag_matches_any_tag_case_insensitively_in_importance_order(
    app_client: httpx.AsyncClient,
):
    low = await create(app_client, content="low", tags=["Alpha"], importance=0.2)
    high = await create(app_client, content="high", tags=["beta"], importance=0.9)
    await create(app_client, content="other", tags=["gamma"])

    response = await app_client.get(
        "/memory/by-tag", params={"tags": "alpha,BETA", "limit": 1}, headers=H
    )
    page = response.json()
    assert page["count"] == 1 and page["has_more"] is True
    assert page["memories"][0]["id"] == high["memory_id"]
    second = await app_client.get(
        "/memory/by-tag", params=[("tags", "alpha"), ("tags", "beta"), ("offset", "1")], headers=H
    )
    assert [m["id"] for m in second.json()["memories"]] == [low["memory_id"]]


async def test_delete_by_tag_deletes_every_match_with_tombstones(app_client: httpx.AsyncClient):
    ids = [
        (await create(app_client, content=f"session note {i}", tags=["session"]))["memory_id"]
        for i in range(3)
    ]
    keep = await create(app_client, content="keep me", tags=["keep"])
    response = await app_client.delete("/memory/by-tag", params={"tags": "SESSION"}, headers=H)
    assert response.json()["deleted_count"] == 3
    for memory_id in ids:
        history = (await app_client.get(f"/memory/{memory_id}/history", headers=H)).json()
        assert history["deleted"] is True
    assert (await app_client.get(f"/memory/{keep['memory_id']}", headers=H)).status_code == 200


async def test_batch_stores_all_in_order(app_client: httpx.AsyncClient):
    items = [{"content": f"fact {i}", "tags": ["batch"], "importance": i / 10} for i in range(5)]
    response = await app_client.post("/memory/batch", json={"memories": items}, headers=H)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["stored"] == 5 and body["qdrant"] == "stored (5)"
    contents = [
        (await app_client.get(f"/memory/{i}", headers=H)).json()["memory"]["content"]
        for i in body["memory_ids"]
    ]
    assert contents == [f"fact {i}" for i in range(5)]
