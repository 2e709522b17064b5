"""/health: each store's state, degraded when one fails, counts only with a key."""

from pathlib import Path

import httpx

from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, running_client, test_settings


async def test_health_without_a_key_has_no_counts(app_client: httpx.AsyncClient):
    body = (await app_client.get("/health")).json()
    assert body["status"] == "healthy" and body["degraded"] is False
    assert body["falkordb"] == "connected" and body["qdrant"] == "connected"
    assert "memory_count" not in body and "vector_count" not in body


async def test_health_counts_for_a_user_and_for_the_admin(app_client: httpx.AsyncClient):
    await app_client.post("/memory", json={"content": "counted"}, headers=auth(ALICE_KEY))
    mine = (await app_client.get("/health", headers=auth(ALICE_KEY))).json()
    assert mine["memory_count"] >= 1 and "vector_count" not in mine
    admin = (await app_client.get("/health", headers=auth(ADMIN_KEY))).json()
    assert admin["memory_count"] >= mine["memory_count"]
    assert admin["vector_count"] == admin["memory_count"]
    assert (await app_client.get("/health", headers=auth("wrong"))).status_code == 401


async def test_vector_index_failure_degrades_visibly_but_writes_succeed(
    falkordb_url: str, tmp_path: Path
):
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as client:
        await client.app.state.stores.vectors.close()  # the engine is gone from under us

        response = await client.post(
            "/memory", json={"content": "still safe"}, headers=auth(ALICE_KEY)
        )
        assert response.status_code == 201
        assert response.json()["qdrant"] == "failed"
        memory_id = response.json()["memory_id"]
        memory = (await client.get(f"/memory/{memory_id}", headers=auth(ALICE_KEY))).json()[
            "memory"
        ]
        assert memory["content"] == "still safe" and memory["embedding_status"] == "pending"

        health = (await client.get("/health")).json()
        assert health["status"] == "degraded" and health["degraded"] is True
        assert health["qdrant"] in ("degraded", "disconnected")
        assert health["stores"]["qdrant"]["last_error"]
        assert health["falkordb"] == "connected"
