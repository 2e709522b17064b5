"""Export and import as JSON Lines with the real stores: an export imports into a fresh server
with the same memories, revisions, links and entities; a second import adds nothing; AutoMem's
memories import with their fields mapped; a bad line is refused before anything is written."""

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ALICE_KEY, auth
from tests.ops.test_backup import ADMIN, AGENT, ALICE, BOB, make_client, populate, store

AUTOMEM_ID, AUTOMEM_OTHER = (
    "5b0f6f2e-7d43-4f43-9a55-3d4f2b7c9e10",
    "0c9a8f7e-1111-4222-8333-444455556666",
)
AUTOMEM_LINES = [
    {
        "format": "automem",
        "memory": {
            "id": AUTOMEM_ID,
            "content": "Chose PostgreSQL over MySQL for the billing service",
            "timestamp": "2025-03-04T10:00:00+00:00",
            "importance": 0.8,
            "tags": ["project:billing"],
            "tag_prefixes": ["project", "project:billing"],
            "type": "Decision",
            "confidence": 0.9,
            "t_valid": "2025-03-04T10:00:00+00:00",
            "updated_at": "2025-03-05T09:00:00+00:00",
            "last_accessed": "2025-03-06T09:00:00+00:00",
            "metadata": '{"source": "slack"}',
            "processed": True,
            "summary": "PostgreSQL for billing",
            "relevance_score": 0.7,
        },
        "links": [{"type": "LEADS_TO", "target": AUTOMEM_OTHER, "properties": {"strength": 0.6}}],
    },
    {
        "id": AUTOMEM_OTHER,
        "content": "Billing migrations run with Alembic",
        "type": "Memory",
        "timestamp": "2025-03-07T10:00:00Z",
        "importance": 0.5,
        "tags": [],
        "metadata": "{}",
    },
]


@pytest.fixture
async def source(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for client in make_client(falkordb_url, tmp_path / "source"):
        yield client


@pytest.fixture
async def target(falkordb_url: str, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for client in make_client(falkordb_url, tmp_path / "target"):
        yield client


async def export(client: httpx.AsyncClient, **params: str) -> list[dict[str, Any]]:
    response = await client.get("/admin/export", params=params, headers=ADMIN)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()]


async def import_lines(
    client: httpx.AsyncClient, lines: list[dict[str, Any]], **params: str
) -> httpx.Response:
    body = "".join(json.dumps(line) + "\n" for line in lines)
    return await client.post("/admin/import", content=body, params=params, headers=ADMIN)


async def seen(client: httpx.AsyncClient, ids: dict[str, list[str]]) -> dict[str, Any]:
    view: dict[str, Any] = {}
    for who, headers in (("alice", ALICE), ("agent", AGENT), ("bob", BOB)):
        for memory_id in ids[who]:
            memory = (await client.get(f"/memory/{memory_id}", headers=headers)).json()["memory"]
            memory.pop("embedding_status", None)
            history = (await client.get(f"/memory/{memory_id}/history", headers=headers)).json()
            related = await client.get(f"/memories/{memory_id}/related", headers=headers)
            view[memory_id] = [memory, history["revisions"], related.json()["related_memories"]]
    view["entities"] = (await client.get("/entities", headers=ALICE)).json()["entities"]
    return view


async def test_export_then_import_round_trips(
    source: httpx.AsyncClient, target: httpx.AsyncClient
) -> None:
    ids = await populate(source)
    lines = await export(source)
    assert len(lines) == 6 and all(line["format"] == "engram-export" for line in lines)
    by_id = {line["memory"]["id"]: line for line in lines}
    assert (
        by_id[ids["alice"][1]]["revisions"][0]["content"]
        == "Alice prefers green tea in the morning."
    )
    assert by_id[ids["alice"][0]]["entities"] and by_id[ids["alice"][0]]["links"]
    assert ids["gone"][0] not in by_id

    imported = await import_lines(target, lines)
    assert imported.status_code == 200, imported.text
    report = imported.json()
    assert report["imported"] == 6 and report["unresolved_links"] == 0
    assert report["queued_for_embedding"] == 6
    assert await seen(target, ids) == await seen(source, ids)

    again = (await import_lines(target, lines)).json()
    assert again["imported"] == 0 and again["duplicate_ids"] == 6

    only_bob = await export(source, user_id="bob")
    assert [line["memory"]["user_id"] for line in only_bob] == ["bob"]


async def test_import_skips_the_same_content_under_another_id(
    source: httpx.AsyncClient, target: httpx.AsyncClient
) -> None:
    await store(source, "Exactly this sentence.")
    await store(target, "Exactly this sentence.")
    report = (await import_lines(target, await export(source))).json()
    assert report["imported"] == 0 and report["duplicate_content"] == 1


async def test_an_automem_export_imports(target: httpx.AsyncClient) -> None:
    refused = await import_lines(target, AUTOMEM_LINES)
    assert refused.status_code == 400 and "pass user_id" in refused.json()["message"]

    response = await import_lines(target, AUTOMEM_LINES, user_id="alice")
    assert response.status_code == 200, response.text
    assert response.json()["imported"] == 2 and response.json()["links"] == 1
    memory = (await target.get(f"/memory/{AUTOMEM_ID}", headers=ALICE)).json()["memory"]
    assert memory["type"] == "Decision" and memory["importance"] == 0.8
    assert memory["tags"] == ["project:billing"] and memory["metadata"]["source"] == "slack"
    assert memory["timestamp"].startswith("2025-03-04T10:00:00")
    assert memory["summary"] == "PostgreSQL for billing"
    other = (await target.get(f"/memory/{AUTOMEM_OTHER}", headers=ALICE)).json()["memory"]
    assert other["content"] == "Billing migrations run with Alembic"
    related = await target.get(f"/memories/{AUTOMEM_ID}/related", headers=ALICE)
    assert [m["id"] for m in related.json()["related_memories"]] == [AUTOMEM_OTHER]
    bob = await target.get(f"/memory/{AUTOMEM_ID}", headers=auth("bob-key-0123456789abcdef"))
    assert bob.status_code == 404


async def test_a_bad_line_is_refused_before_anything_is_written(
    target: httpx.AsyncClient,
) -> None:
    lines = [*AUTOMEM_LINES, {"content": ""}]
    response = await import_lines(target, lines, user_id="alice")
    assert response.status_code == 400 and response.json()["message"].startswith("Line 3:")
    assert (await target.get(f"/memory/{AUTOMEM_ID}", headers=ALICE)).status_code == 404
    garbage = await target.post("/admin/import", content=b"{not json\n", headers=ADMIN)
    assert garbage.status_code == 400 and "Line 1" in garbage.json()["message"]


async def test_a_line_nested_too_deeply_is_400_naming_it(target: httpx.AsyncClient) -> None:
    deep_array = b"[" * 10_000 + b"]" * 10_000
    deep_metadata = b'{"content": "x", "metadata": ' + b'{"a": ' * 10_000 + b"1" + b"}" * 10_001
    for line in (deep_array, deep_metadata):
        response = await target.post(
            "/admin/import?user_id=alice", content=line + b"\n", headers=ADMIN
        )
        assert response.status_code == 400, response.text
        assert response.json()["message"] == "Line 1: its JSON is nested too deeply"


async def test_export_and_import_are_admin_only(target: httpx.AsyncClient) -> None:
    assert (await target.get("/admin/export", headers=ALICE)).status_code == 403
    refused = await target.post("/admin/import", content=b"", headers=auth(ALICE_KEY))
    assert refused.status_code == 403
