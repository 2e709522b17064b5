"""/mcp with the MCP SDK's own client against a live server: every tool, the resources, the
keys and the agent scope of the REST API."""

import asyncio
import base64
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import ALICE_KEY, BOB_KEY, test_settings
from tests.live import live_server

TOOLS = {
    "remember",
    "remember_status",
    "store",
    "get",
    "update",
    "delete",
    "recall",
    "context",
    "core",
    "profile",
    "associate",
    "related",
    "entities",
    "save_artifact",
    "list_artifacts",
    "get_artifact",
    "delete_artifact",
}


@pytest.fixture(scope="module")
async def base_url(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    settings = test_settings(tmp_path_factory.mktemp("mcp"), falkordb_url=falkordb_url, workers=1)
    async with live_server(settings) as url:
        yield url


@asynccontextmanager
async def mcp_session(base_url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


async def failure(session: ClientSession, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    return result.content[0].text


def bearer(key: str, agent: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}"}
    return headers | ({"X-Agent-Id": agent} if agent else {})


async def test_tools_are_listed_with_descriptions_and_schemas(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        tools = (await session.list_tools()).tools
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.description, tool.name
        assert tool.input_schema["type"] == "object"
    recall = next(tool for tool in tools if tool.name == "recall")
    assert {"query", "limit", "tags", "time_query"} <= set(recall.input_schema["properties"])
    assert recall.input_schema["required"] == ["query"]


async def test_memory_tools_round_trip(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        stored = await call(
            session,
            "store",
            content="Alice's favourite database is FalkorDB",
            tags=["db"],
            importance=0.8,
        )
        memory_id = stored["memory_id"]
        assert (await call(session, "get", memory_id=memory_id))["content"].startswith("Alice")
        other = await call(session, "store", content="FalkorDB runs on Redis", pinned=True)
        changed = await call(session, "update", memory_id=memory_id, tags=["db", "graph"])
        assert changed["tags"] == ["db", "graph"] and changed["version"] == 2

        found = await call(session, "recall", query="favourite database", limit=3)
        assert found["results"][0]["id"] == memory_id
        assert found["results"][0]["content"] == "Alice's favourite database is FalkorDB"

        linked = await call(
            session,
            "associate",
            memory1_id=memory_id,
            memory2_id=other["memory_id"],
            type="RELATES_TO",
            strength=0.7,
        )
        assert linked["relation_type"] == "RELATES_TO"
        related = await call(session, "related", memory_id=memory_id)
        assert [m["id"] for m in related["related_memories"]] == [other["memory_id"]]

        core = await call(session, "core")
        assert other["memory_id"] in json.dumps(core["sections"])
        block = await call(session, "context", query="database", max_tokens=200)
        assert "FalkorDB" in block["context"] and memory_id in block["memory_ids"]
        assert isinstance((await call(session, "entities"))["entities"], list)

        deleted = await call(session, "delete", memory_id=memory_id)
        assert deleted["memory_id"] == memory_id
        assert "not_found" in await failure(session, "get", memory_id=memory_id)


async def test_remember_and_its_job(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        accepted = await call(
            session,
            "remember",
            session_id="chat-1",
            messages=[{"role": "user", "content": "I live in Lisbon and I prefer tea."}],
        )
        state = await call(session, "remember_status", job_id=accepted["job_id"])
        assert state["job_id"] == accepted["job_id"]
        assert state["state"] in {"queued", "active", "running", "done"}


async def test_artifact_tools_round_trip(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        memory_id = (await call(session, "store", content="The design review"))["memory_id"]
        text = "Decisions: " + "x" * 30
        saved = await call(
            session, "save_artifact", memory_id=memory_id, filename="r.md", content=text
        )
        artifact_id = saved["artifact"]["id"]
        assert saved["artifact"]["content_type"] == "text/markdown"
        png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 8).decode()
        image = await call(
            session, "save_artifact", memory_id=memory_id, filename="a.png", content_base64=png
        )
        listed = await call(session, "list_artifacts", memory_id=memory_id)
        assert [a["filename"] for a in listed["artifacts"]] == ["r.md", "a.png"]

        page = await call(
            session, "get_artifact", memory_id=memory_id, artifact_id=artifact_id, limit=10
        )
        assert page["content"] == text[:10] and page["next_offset"] == 10
        inline = await call(
            session, "get_artifact", memory_id=memory_id, artifact_id=image["artifact"]["id"]
        )
        assert inline["content_base64"] == png

        await call(session, "delete_artifact", memory_id=memory_id, artifact_id=artifact_id)
        message = await failure(
            session, "get_artifact", memory_id=memory_id, artifact_id=artifact_id
        )
        assert "not_found" in message
    async with mcp_session(base_url, bearer(BOB_KEY)) as bob:
        assert "not_found" in await failure(bob, "list_artifacts", memory_id=memory_id)


async def test_an_empty_text_artifact_breaks_no_artifact_search(base_url: str):
    """Issue 41, item 2: one empty text artifact made every include_artifacts recall fail."""
    async with mcp_session(base_url, bearer(ALICE_KEY, agent="archivist")) as session:
        memory_id = (await call(session, "store", content="notes of the archive"))["memory_id"]
        for name, text in (("empty.txt", ""), ("blank.md", " \n\t ")):
            await call(session, "save_artifact", memory_id=memory_id, filename=name, content=text)
        found = await call(session, "recall", query="archive notes", include_artifacts=True)
        assert found["artifacts"]["results"] == [] and found["artifacts"]["skipped"] == 0


async def test_context_opens_with_the_session_s_latest_messages(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        said = ["My canoe is green.", "Green canoes blend into the reeds."]
        messages = [
            {"role": role, "content": text}
            for role, text in zip(("user", "assistant"), said, strict=True)
        ]
        accepted = await call(session, "remember", session_id="canoe", messages=messages)
        for _ in range(600):
            state = await call(session, "remember_status", job_id=accepted["job_id"])
            if state["state"] in ("done", "dead"):
                break
            await asyncio.sleep(0.1)
        assert state["state"] == "done", state
        block = await call(session, "context", query="canoe", session_id="canoe")
        assert block["session_messages"] == 2
        assert block["context"].index(said[0]) < block["context"].index(said[1])


async def test_bad_arguments_are_named(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        message = await failure(session, "store", content="   ")
        assert "content" in message
        message = await failure(session, "get", memory_id="not-a-uuid")
        assert "bad_request: memory_id must be a valid UUID" in message
        message = await failure(session, "update", memory_id=str(uuid.uuid4()), importance=2)
        assert "importance" in message


async def test_an_id_that_is_a_dot_segment_reaches_no_other_route(base_url: str):
    """Issue 41, item 5: delete_artifact(M, "..") deleted memory M itself (the URL
    /memory/M/artifacts/.. resolves to /memory/M) and get_artifact(M, "..") returned it."""
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        memory_id = (await call(session, "store", content="kept, whatever the artifact id"))[
            "memory_id"
        ]
        for artifact_id in ("..", "."):
            for tool in ("get_artifact", "delete_artifact"):
                message = await failure(session, tool, memory_id=memory_id, artifact_id=artifact_id)
                assert "bad_request: artifact_id must be a valid UUID" in message, (tool, message)
        for tool in ("get", "delete", "list_artifacts", "related"):
            message = await failure(session, tool, memory_id="..")
            assert "bad_request: memory_id must be a valid UUID" in message, (tool, message)
        assert (await call(session, "get", memory_id=memory_id))["content"].startswith("kept")
        assert "not_found" in await failure(session, "remember_status", job_id="..")


async def test_importance_takes_the_rest_api_s_levels(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        stored = await call(session, "store", content="Backups run nightly", importance="high")
        assert stored["importance"] == 0.7
        memory_id = stored["memory_id"]
        updated = await call(session, "update", memory_id=memory_id, importance="Critical")
        assert updated["importance"] == 1.0
        message = await failure(session, "update", memory_id=memory_id, importance="urgent")
        assert "bad_request: Invalid 'importance'" in message
        assert "low, normal, high, critical" in message


async def test_resources_give_core_memories_and_one_memory(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        pinned = await call(session, "store", content="My name is Alice", type="Fact", pinned=True)
        templates = (await session.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} == {
            "engram://core/{section}",
            "engram://memory/{memory_id}",
        }
        everything = await session.read_resource("engram://core/all")
        assert pinned["memory_id"] in everything.contents[0].text
        one = await session.read_resource(f"engram://memory/{pinned['memory_id']}")
        assert json.loads(one.contents[0].text)["content"] == "My name is Alice"


async def test_tenancy_holds_across_keys_and_agents(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY, agent="planner")) as alice:
        secret = await call(alice, "store", content="Alice's locker code is 4512")
    async with mcp_session(base_url, bearer(BOB_KEY)) as bob:
        assert "not_found" in await failure(bob, "get", memory_id=secret["memory_id"])
        assert "not_found" in await failure(
            bob, "update", memory_id=secret["memory_id"], content="mine now"
        )
        assert "not_found" in await failure(bob, "delete", memory_id=secret["memory_id"])
        found = await call(bob, "recall", query="locker code", limit=10)
        assert secret["memory_id"] not in [item["id"] for item in found["results"]]
        with pytest.raises(Exception, match="not_found"):
            await bob.read_resource(f"engram://memory/{secret['memory_id']}")
    async with mcp_session(base_url, bearer(ALICE_KEY, agent="writer")) as other_agent:
        found = await call(other_agent, "recall", query="locker code", limit=10)
        assert secret["memory_id"] not in [item["id"] for item in found["results"]]
    async with mcp_session(base_url, bearer(ALICE_KEY, agent="planner")) as alice:
        assert (await call(alice, "get", memory_id=secret["memory_id"]))["content"]
        turns = [{"role": "user", "content": "My locker moved to the second floor"}]
        job = await call(alice, "remember", messages=turns, session_id="lockers")
        assert (await call(alice, "remember_status", job_id=job["job_id"]))["job_id"]
    async with mcp_session(base_url, bearer(ALICE_KEY, agent="writer")) as sibling:
        message = await failure(sibling, "remember_status", job_id=job["job_id"])
        assert "not_found" in message


async def test_requests_without_a_valid_key_are_refused(base_url: str, tmp_path: Path):
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(base_url=base_url) as client:
        missing = await client.post("/mcp", json=initialize, headers=headers)
        wrong = await client.post(
            "/mcp", json=initialize, headers=headers | {"X-API-Key": "not-a-key"}
        )
    assert missing.status_code == 401 and missing.json()["error"] == "unauthorized"
    assert wrong.status_code == 401 and wrong.json()["message"] == "Invalid API key"


async def test_remember_without_a_session_uses_today_s_mcp_session(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY, agent="desktop")) as session:
        turns = [{"role": "user", "content": "I keep my bike in the blue shed."}]
        job = await call(session, "remember", messages=turns)
        for _ in range(600):  # bounded: the live server's worker runs the job
            state = await call(session, "remember_status", job_id=job["job_id"])
            if state["state"] in ("done", "dead"):
                break
            await asyncio.sleep(0.1)
        assert state["state"] == "done", state
        today = f"mcp-{datetime.now(UTC).date().isoformat()}"
        block = await call(session, "context", query="bike", session_id=today)
        assert block["session_messages"] == 1 and "blue shed" in block["context"]


async def test_arguments_outside_a_tool_s_schema_answer_in_engram_s_words(base_url: str):
    async with mcp_session(base_url, bearer(ALICE_KEY)) as session:
        message = await failure(session, "recall", query="tea", limit=1000)
        assert "bad_request: Invalid 'limit'" in message
        message = await failure(session, "recall", limit=3)
        assert "bad_request: 'query' is required" in message
        message = await failure(session, "remember", messages="hello")
        assert "bad_request: Invalid 'messages'" in message
        for raw in ("validation error", "type=", "errors.pydantic.dev", "Arguments"):
            assert raw not in message
