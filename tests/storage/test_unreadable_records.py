"""One record whose JSON property does not parse (issue 41: a transcript memory held
`metadata = ''` and every recall that shortlisted it answered 500) never breaks a read: recall,
GET /memory, the list, export and history read it as empty and log it; fsck reports it and
repairs it; and no write can store such a value."""

import json
import logging

import httpx
import pytest

from app.storage.graph.records import (
    InvalidJsonProperty,
    graph_values,
    json_property_text,
    parse_json_property,
)
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth

ALICE, ADMIN = auth(ALICE_KEY), auth(ADMIN_KEY)
# What a planted node holds, per memory: one of each unreadable shape.
PLANTS = {
    "metadata": "",  # the value found in the field
    "labels": '{"project": "ha',  # half a document
    "source": "[1, 2]",  # valid JSON of the wrong type
}


async def put(client: httpx.AsyncClient, content: str, **body: object) -> str:
    response = await client.post("/memory", json={"content": content, **body}, headers=ALICE)
    assert response.status_code == 201, response.text
    return str(response.json()["memory_id"])


async def raw(client: httpx.AsyncClient, cypher: str, **params: object) -> list[list[object]]:
    graph = client.app.state.runtime.stores.graph  # type: ignore[attr-defined]
    return list(await graph.query(cypher, params))


@pytest.fixture(scope="module")
async def planted(app_client: httpx.AsyncClient) -> dict[str, str]:
    """Three memories about a violin, each with one JSON property overwritten in the graph
    itself, and a clean one beside them."""
    ids = {}
    for key, value in PLANTS.items():
        memory_id = await put(
            app_client,
            f"Alice practises the violin every evening ({key})",
            metadata={"kept": True},
            labels={"project": "music"},
        )
        await raw(
            app_client, f"MATCH (m:Memory {{id: $id}}) SET m.{key} = $bad", id=memory_id, bad=value
        )
        ids[key] = memory_id
    ids["clean"] = await put(app_client, "Alice tunes her violin before practice")
    return ids


async def test_recall_reads_them_as_empty_and_logs_their_ids(
    app_client: httpx.AsyncClient, planted: dict[str, str], caplog: pytest.LogCaptureFixture
):
    with caplog.at_level(logging.WARNING, logger="app.storage.graph.records"):
        response = await app_client.get(
            "/recall", params={"query": "violin practice", "limit": 10}, headers=ALICE
        )
    assert response.status_code == 200, response.text
    found = {r["id"]: r for r in response.json()["results"]}
    assert set(planted.values()) <= set(found)
    warned = caplog.text
    for key in PLANTS:
        assert planted[key] in warned and key in warned
    labelled = await app_client.get(
        "/recall",
        params={"query": "violin practice", "labels": "project=music", "limit": 10},
        headers=ALICE,
    )
    assert labelled.status_code == 200, labelled.text
    matched = {r["id"] for r in labelled.json()["results"]}
    assert planted["metadata"] in matched and planted["labels"] not in matched


async def test_get_list_history_and_export_read_them_as_empty(
    app_client: httpx.AsyncClient, planted: dict[str, str]
):
    for key in PLANTS:
        got = await app_client.get(f"/memory/{planted[key]}", headers=ALICE)
        assert got.status_code == 200, got.text
        assert got.json()["memory"][key] == {}
        history = await app_client.get(f"/memory/{planted[key]}/history", headers=ALICE)
        assert history.status_code == 200, history.text
    listed = await app_client.get("/memory", params={"limit": 100}, headers=ALICE)
    assert listed.status_code == 200, listed.text
    assert set(planted.values()) <= {m["id"] for m in listed.json()["memories"]}
    for exported in (
        await app_client.get("/admin/export", params={"user_id": "alice"}, headers=ADMIN),
        await app_client.get("/me/export", headers=ALICE),
    ):
        assert exported.status_code == 200, exported.text
        memories = {
            line["memory"]["id"]: line["memory"]
            for line in map(json.loads, exported.content.splitlines())
            if "memory" in line
        }
        assert memories[planted["metadata"]]["metadata"] == {}


async def test_fsck_reports_each_and_repairs_it(
    app_client: httpx.AsyncClient, planted: dict[str, str]
):
    found = (await app_client.post("/admin/fsck", json={}, headers=ALICE)).json()
    assert found["counts"]["unreadable_property"] == len(PLANTS)
    issues = {i["ids"][0]: i for i in found["issues"] if i["type"] == "unreadable_property"}
    for key in PLANTS:
        assert key in issues[planted[key]]["detail"]
    assert planted["clean"] not in issues

    repaired = (await app_client.post("/admin/fsck", json={"apply": True}, headers=ALICE)).json()
    assert repaired["applied"] >= len(PLANTS)
    for key in PLANTS:
        rows = await raw(
            app_client, f"MATCH (m:Memory {{id: $id}}) RETURN m.{key}", id=planted[key]
        )
        assert rows == [["{}"]]
    again = (await app_client.post("/admin/fsck", json={}, headers=ALICE)).json()
    assert "unreadable_property" not in again["counts"]


async def test_no_write_stores_a_value_its_reads_cannot_parse(app_client: httpx.AsyncClient):
    for bad in ("", "{}", [], None):
        if bad is None:
            assert graph_values({"metadata": None}) == {"metadata": None}  # removes it
            continue
        with pytest.raises(InvalidJsonProperty):
            graph_values({"metadata": bad})
    with pytest.raises(InvalidJsonProperty):
        json_property_text("metadata", "")
    assert json_property_text("metadata", '{"a": 1}') == '{"a":1}'
    memory_id = await put(app_client, "A note whose metadata a client tries to blank")
    for blank in ("", "[]", 7):
        patched = await app_client.patch(
            f"/memory/{memory_id}", json={"metadata": blank}, headers=ALICE
        )
        assert patched.status_code == 400, patched.text
    rows = await raw(app_client, "MATCH (m:Memory {id: $id}) RETURN m.metadata", id=memory_id)
    assert isinstance(json.loads(str(rows[0][0])), dict)


async def test_an_import_refuses_a_revision_whose_json_does_not_parse(
    app_client: httpx.AsyncClient, planted: dict[str, str]
):
    exported = await app_client.get("/me/export", headers=ALICE)
    line = json.loads(exported.content.splitlines()[0])
    line["memory"]["id"] = "00000000-0000-4000-8000-00000000041a"
    line["revisions"] = [{**line["memory"], "version": 0, "metadata": ""}]
    line["links"] = []
    imported = await app_client.post(
        "/admin/import", content=json.dumps(line).encode() + b"\n", headers=ADMIN
    )
    assert "metadata" in imported.text
    rows = await raw(app_client, "MATCH (r:Revision) WHERE r.metadata = '' RETURN count(r)")
    assert rows == [[0]]


def test_a_read_takes_an_unparseable_value_as_empty():
    assert parse_json_property("metadata", "", "m1") == {}
    assert parse_json_property("metadata", "null", "m1") == {}
    assert parse_json_property("artifacts", "{}", "m1") == []
    assert parse_json_property("artifacts", "[]", "m1") == []
    assert parse_json_property("labels", '{"a":1}', "m1") == {"a": 1}
    assert parse_json_property("source", None, "m1") == {}
