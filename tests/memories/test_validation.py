"""Bad input gets a 400 with a message naming the field, and nothing is written."""

import httpx
import pytest

from tests.conftest import ALICE_KEY, auth

H = auth(ALICE_KEY)
LONG = "x" * 2001
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"

BAD_CREATES = [
    ({}, "'content' is required"),
    ({"content": ""}, "'content'"),
    ({"content": "   "}, "must not be empty"),
    ({"content": 42}, "'content': must be a string"),
    ({"content": LONG}, "exceeds maximum length of 2000 characters (2001 provided)"),
    ({"content": "ok", "importance": 1.5}, "'importance': must be between 0 and 1"),
    ({"content": "ok", "importance": -0.1}, "'importance'"),
    ({"content": "ok", "importance": "urgent"}, "low, normal, high, critical"),
    ({"content": "ok", "importance": True}, "'importance'"),
    ({"content": "ok", "confidence": 2}, "'confidence': must be between 0 and 1"),
    ({"content": "ok", "tags": 5}, "'tags': must be a list of strings or a single string"),
    ({"content": "ok", "tags": ["a", 1]}, "'tags'"),
    ({"content": "ok", "metadata": "x"}, "'metadata': must be an object"),
    ({"content": "ok", "metadata": [1]}, "'metadata': must be an object"),
    ({"content": "ok", "type": "Banana"}, "'type': must be one of Decision"),
    ({"content": "ok", "labels": {"bad key": "v"}}, "'labels': key 'bad key' must match"),
    ({"content": "ok", "labels": {"k": {"nested": 1}}}, "flat values only"),
    ({"content": "ok", "labels": {f"k{i}": i for i in range(21)}}, "at most 20 keys"),
    ({"content": "ok", "labels": ["a"]}, "'labels': must be an object"),
    ({"content": "ok", "timestamp": "yesterday"}, "'timestamp': must be an ISO-8601 timestamp"),
    ({"content": "ok", "t_valid": "2026-13-45"}, "'t_valid'"),
    (
        {"content": "ok", "t_valid": "2026-02-01T00:00:00Z", "t_invalid": "2026-01-01T00:00:00Z"},
        "'t_invalid': must be later than t_valid",
    ),
    (
        {"content": "ok", "embedding": [0.1, 0.2]},
        "'embedding': must contain exactly 8 values (2 provided)",
    ),
    ({"content": "ok", "embedding": ["a"] * 8}, "'embedding': must contain only numeric values"),
    ({"content": "ok", "role": "system"}, "'role'"),
    ({"content": "ok", "ttl_days": -1}, "'ttl_days'"),
    ({"content": "ok", "agent_id": "bad agent!"}, "'agent_id'"),
    ({"content": "ok", "source": {"unknown": 1}}, "'source.unknown'"),
    ({"content": "ok", "pinned": "maybe"}, "'pinned'"),
]


async def memory_count(client: httpx.AsyncClient) -> int:
    return (await client.get("/health", headers=H)).json()["memory_count"]


@pytest.mark.parametrize(("body", "message"), BAD_CREATES)
async def test_bad_create_is_400_with_field_named_and_writes_nothing(
    app_client: httpx.AsyncClient, body: dict, message: str
):
    before = await memory_count(app_client)
    response = await app_client.post("/memory", json=body, headers=H)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["status"] == "error" and error["code"] == 400
    assert message in error["message"]
    assert "Traceback" not in response.text
    assert await memory_count(app_client) == before


async def test_non_json_and_non_object_bodies_are_400(app_client: httpx.AsyncClient):
    not_json = await app_client.post(
        "/memory", content=b"{nope", headers={**H, "content-type": "application/json"}
    )
    assert not_json.status_code == 400 and "not valid JSON" in not_json.json()["message"]
    array = await app_client.post("/memory", json=["content"], headers=H)
    assert array.status_code == 400


async def test_batch_is_all_or_nothing(app_client: httpx.AsyncClient):
    before = await memory_count(app_client)
    items = [{"content": "fine"}, {"content": "fine too"}, {"content": "bad", "importance": 7}]
    response = await app_client.post("/memory/batch", json={"memories": items}, headers=H)
    assert response.status_code == 400
    assert response.json()["message"].startswith("Memory at index 2: Invalid 'importance'")

    bad_vector = [{"content": "a"}, {"content": "b", "embedding": [1.0]}]
    response = await app_client.post("/memory/batch", json={"memories": bad_vector}, headers=H)
    assert response.status_code == 400
    assert response.json()["message"].startswith("Memory at index 1: Invalid 'embedding'")

    assert (
        await app_client.post("/memory/batch", json={"memories": []}, headers=H)
    ).status_code == 400
    too_many = {"memories": [{"content": "x"}] * 501}
    response = await app_client.post("/memory/batch", json=too_many, headers=H)
    assert response.status_code == 400 and "'memories'" in response.json()["message"]
    assert await memory_count(app_client) == before


BAD_PATCHES = [
    ({}, "Nothing to update"),
    ({"importance": 3}, "'importance'"),
    ({"importance": None}, "'importance': cannot be null"),
    ({"content": None}, "'content': cannot be null"),
    ({"type": "nope"}, "'type'"),
    ({"metadata": 1}, "'metadata'"),
    ({"unknown_field": 1}, "'unknown_field' is not a field that can be set here"),
    ({"t_invalid": "2000-01-01T00:00:00Z"}, "'t_invalid': must be later than t_valid"),
    ({"expected_version": 0}, "'expected_version'"),
]


@pytest.mark.parametrize(("body", "message"), BAD_PATCHES)
async def test_bad_patch_is_400_and_changes_nothing(
    app_client: httpx.AsyncClient, body: dict, message: str
):
    created = (await app_client.post("/memory", json={"content": "stable"}, headers=H)).json()
    memory_id = created["memory_id"]
    response = await app_client.patch(f"/memory/{memory_id}", json=body, headers=H)
    assert response.status_code == 400, response.text
    assert message in response.json()["message"]
    memory = (await app_client.get(f"/memory/{memory_id}", headers=H)).json()["memory"]
    assert memory["version"] == 1 and memory["content"] == "stable"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/memory/not-a-uuid"),
        ("PATCH", "/memory/not-a-uuid"),
        ("DELETE", "/memory/not-a-uuid"),
        ("GET", "/memory/not-a-uuid/history"),
        ("GET", "/memory/by-tag"),
        ("DELETE", "/memory/by-tag?tags=,,"),
    ],
)
async def test_bad_path_and_query_parameters_are_400(
    app_client: httpx.AsyncClient, method: str, path: str
):
    response = await app_client.request(method, path, json={"importance": 1}, headers=H)
    assert response.status_code == 400
    assert response.json()["message"] in (
        "memory_id must be a valid UUID",
        "'tags' query parameter is required",
    )


async def test_unknown_memory_is_404_in_the_envelope(app_client: httpx.AsyncClient):
    response = await app_client.get(f"/memory/{UNKNOWN_ID}", headers=H)
    assert response.status_code == 404
    assert response.json() == {
        "status": "error",
        "code": 404,
        "error": "not_found",
        "message": f"Memory {UNKNOWN_ID} not found",
    }
