"""Issue 34: timestamps that cannot be stored are refused before anything is written, times at the
edge of the calendar are stored like any other, and a memory already lacking its timestamp does
not break the reads of its scope."""

import httpx
import pytest

from tests.conftest import ALICE_KEY, auth

H = auth(ALICE_KEY, agent="timestamps")
EDGES = ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"]
# Valid datetimes whose UTC time falls outside years 1–9999.
UNCONVERTIBLE = ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"]


async def count(client: httpx.AsyncClient) -> int:
    return (await client.get("/health", headers=H)).json()["memory_count"]


async def create(client: httpx.AsyncClient, **body: object) -> dict:
    response = await client.post("/memory", json=body, headers=H)
    assert response.status_code == 201, response.text
    return response.json()


async def remove_timestamp(client: httpx.AsyncClient, memory_id: str) -> None:
    """Data written before timestamps were checked: a memory node without one."""
    graph = client.app.state.stores.graph  # type: ignore[attr-defined]
    await graph.query("MATCH (m:Memory {id: $id}) REMOVE m.timestamp", {"id": memory_id})


async def test_a_null_timestamp_in_a_patch_is_400_and_changes_nothing(
    app_client: httpx.AsyncClient,
):
    stored = await create(app_client, content="The boat leaves at dawn")
    memory_id = stored["memory_id"]
    response = await app_client.patch(f"/memory/{memory_id}", json={"timestamp": None}, headers=H)
    assert response.status_code == 400, response.text
    assert response.json()["message"] == "Invalid 'timestamp': cannot be null"
    memory = (await app_client.get(f"/memory/{memory_id}", headers=H)).json()["memory"]
    assert memory["timestamp"] == stored["timestamp"]
    assert memory["version"] == 1


async def test_a_memory_without_a_timestamp_reads_and_can_be_repaired(
    app_client: httpx.AsyncClient,
):
    stored = await create(app_client, content="Zanzibar trip notes", pinned=True, tags=["trip"])
    memory_id = stored["memory_id"]
    await remove_timestamp(app_client, memory_id)

    got = await app_client.get(f"/memory/{memory_id}", headers=H)
    assert got.status_code == 200, got.text
    assert got.json()["memory"]["timestamp"] == stored["stored_at"]  # its record time stands in
    assert (await app_client.get("/core", headers=H)).status_code == 200
    recall = await app_client.get("/recall", params={"query": "Zanzibar trip"}, headers=H)
    assert recall.status_code == 200, recall.text
    assert memory_id in [r["id"] for r in recall.json()["results"]]
    context = await app_client.post("/recall/context", json={"query": "Zanzibar"}, headers=H)
    assert context.status_code == 200, context.text
    as_of = {"query": "Zanzibar", "as_of": "2999-01-01T00:00:00Z"}
    assert (await app_client.get("/recall", params=as_of, headers=H)).status_code == 200
    assert (await app_client.get(f"/memory/{memory_id}/history", headers=H)).status_code == 200
    assert (await app_client.get("/memory/by-tag?tags=trip", headers=H)).status_code == 200

    restored = await app_client.patch(
        f"/memory/{memory_id}", json={"timestamp": "2026-03-01T10:00:00Z"}, headers=H
    )
    assert restored.status_code == 200, restored.text
    assert restored.json()["memory"]["timestamp"] == "2026-03-01T10:00:00.000000+00:00"
    history = (await app_client.get(f"/memory/{memory_id}/history", headers=H)).json()
    assert history["revisions"][0].get("timestamp") is None  # the state that lacked it is kept


async def test_fsck_reports_a_missing_timestamp_and_its_patch_repairs_it(
    app_client: httpx.AsyncClient,
):
    memory_id = (await create(app_client, content="A memory fsck should flag"))["memory_id"]
    await remove_timestamp(app_client, memory_id)
    report = (await app_client.post("/admin/fsck", json={}, headers=H)).json()
    finding = next(i for i in report["issues"] if i["ids"] == [memory_id])
    assert finding["type"] == "invalid" and "timestamp" in finding["detail"]
    assert "PATCH" in finding["fix"]
    fixed = await app_client.patch(
        f"/memory/{memory_id}", json={"timestamp": "2026-01-01T00:00:00Z"}, headers=H
    )
    assert fixed.status_code == 200, fixed.text
    report = (await app_client.post("/admin/fsck", json={}, headers=H)).json()
    assert not [i for i in report["issues"] if memory_id in i["ids"]]


@pytest.mark.parametrize("edge", EDGES)
async def test_an_edge_of_the_calendar_is_stored_once(app_client: httpx.AsyncClient, edge: str):
    before = await count(app_client)
    body = {"content": f"A memory dated {edge}", "tags": ["edge"]}
    response = await app_client.post("/memory", json={**body, "timestamp": edge}, headers=H)
    assert response.status_code == 201, response.text
    assert response.json()["timestamp"].startswith(edge[:19])
    batch = await app_client.post(
        "/memory/batch",
        json={"memories": [{**body, "timestamp": edge, "t_valid": edge}] * 2},
        headers=H,
    )
    assert batch.status_code == 201, batch.text
    assert await count(app_client) == before + 3


@pytest.mark.parametrize("value", UNCONVERTIBLE)
@pytest.mark.parametrize("field", ["timestamp", "t_valid", "t_invalid"])
async def test_a_time_outside_the_utc_calendar_is_400_naming_the_field(
    app_client: httpx.AsyncClient, field: str, value: str
):
    before = await count(app_client)
    response = await app_client.post("/memory", json={"content": "x", field: value}, headers=H)
    assert response.status_code == 400, response.text
    assert f"Invalid '{field}'" in response.json()["message"]
    assert "years 1–9999" in response.json()["message"]
    stored = await create(app_client, content=f"patched later: {field} {value}")  # a new one each
    patch = await app_client.patch(f"/memory/{stored['memory_id']}", json={field: value}, headers=H)
    assert patch.status_code == 400, patch.text
    assert f"Invalid '{field}'" in patch.json()["message"]
    assert await count(app_client) == before + 1


@pytest.mark.parametrize("value", UNCONVERTIBLE)
@pytest.mark.parametrize("name", ["as_of", "start", "end"])
async def test_a_recall_time_outside_the_utc_calendar_is_400_naming_it(
    app_client: httpx.AsyncClient, name: str, value: str
):
    response = await app_client.get("/recall", params={"query": "x", name: value}, headers=H)
    assert response.status_code == 400, response.text
    assert name in response.json()["message"]
