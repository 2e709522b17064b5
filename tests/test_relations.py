"""Relationships: /associate (single, batch, delete), /memories/{id}/related, never across users."""

import httpx
import pytest

from tests.conftest import ALICE_KEY, BOB_KEY, auth

H, BOB = auth(ALICE_KEY), auth(BOB_KEY)


async def memory(client: httpx.AsyncClient, content: str, headers=H, **extra) -> str:
    response = await client.post("/memory", json={"content": content, **extra}, headers=headers)
    return response.json()["memory_id"]


async def test_associate_and_read_related(app_client: httpx.AsyncClient):
    a, b, c = [await memory(app_client, f"node {i}", importance=i / 10) for i in (3, 5, 7)]
    response = await app_client.post(
        "/associate",
        json={"memory1_id": a, "memory2_id": b, "type": "leads-to", "strength": 0.8, "reason": "x"},
        headers=H,
    )
    assert response.status_code == 201
    assert response.json()["relation_type"] == "LEADS_TO"
    await app_client.post("/associate", json={"memory1_id": b, "memory2_id": c}, headers=H)

    one_hop = (await app_client.get(f"/memories/{a}/related", headers=H)).json()
    assert [m["id"] for m in one_hop["related_memories"]] == [b]
    two_hops = (
        await app_client.get(f"/memories/{a}/related", params={"max_depth": 2}, headers=H)
    ).json()
    assert [m["id"] for m in two_hops["related_memories"]] == [c, b]  # importance order
    only = await app_client.get(
        f"/memories/{a}/related",
        params={"relationship_types": "RELATES_TO", "max_depth": 2},
        headers=H,
    )
    assert only.json()["count"] == 0

    removed = await app_client.request(
        "DELETE",
        "/associate",
        json={"memory1_id": a, "memory2_id": b, "type": "LEADS_TO"},
        headers=H,
    )
    assert removed.status_code == 200
    assert (await app_client.get(f"/memories/{a}/related", headers=H)).json()["count"] == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"memory2_id": "00000000-0000-4000-8000-000000000000"}, "'memory1_id' is required"),
        ({"memory1_id": "x", "memory2_id": "y"}, "'memory1_id' must be a valid UUID"),
        (
            {
                "memory1_id": "00000000-0000-4000-8000-000000000000",
                "memory2_id": "00000000-0000-4000-8000-000000000000",
            },
            "Cannot associate a memory with itself",
        ),
        (
            {
                "memory1_id": "00000000-0000-4000-8000-000000000000",
                "memory2_id": "00000000-0000-4000-8000-000000000001",
                "type": "SIMILAR_TO",
            },
            "Relation type must be one of",
        ),
        (
            {
                "memory1_id": "00000000-0000-4000-8000-000000000000",
                "memory2_id": "00000000-0000-4000-8000-000000000001",
                "strength": 2,
            },
            "'strength' must be a number between 0 and 1",
        ),
    ],
)
async def test_bad_associations_are_400(app_client: httpx.AsyncClient, body: dict, message: str):
    response = await app_client.post("/associate", json=body, headers=H)
    assert response.status_code == 400 and message in response.json()["message"]


async def test_batch_reports_partial_success_with_207(app_client: httpx.AsyncClient):
    a, b = await memory(app_client, "batch a"), await memory(app_client, "batch b")
    missing = "00000000-0000-4000-8000-00000000beef"
    items = [
        {"memory1_id": a, "memory2_id": b, "type": "PART_OF", "role": "member"},
        {"memory1_id": a, "memory2_id": missing},
        {"memory1_id": a, "memory2_id": a},
    ]
    response = await app_client.post("/associate", json={"associations": items}, headers=H)
    assert response.status_code == 207
    body = response.json()
    assert body["created_count"] == 1 and [f["index"] for f in body["failed"]] == [1, 2]
    assert body["summary"] == "1/3 associations created successfully"


async def test_links_never_cross_users(app_client: httpx.AsyncClient):
    mine, theirs = (
        await memory(app_client, "alice's"),
        await memory(app_client, "bob's", headers=BOB),
    )
    cross = await app_client.post(
        "/associate", json={"memory1_id": mine, "memory2_id": theirs}, headers=H
    )
    assert cross.status_code == 404
    as_bob = await app_client.post(
        "/associate", json={"memory1_id": theirs, "memory2_id": mine}, headers=BOB
    )
    assert as_bob.status_code == 404
    assert (await app_client.get(f"/memories/{mine}/related", headers=BOB)).status_code == 404
    gone = await app_client.request(
        "DELETE", "/associate", json={"memory1_id": mine, "memory2_id": theirs}, headers=H
    )
    assert gone.status_code == 404
