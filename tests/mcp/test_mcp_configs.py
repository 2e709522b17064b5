"""docs/mcp.md's client configurations (Claude Desktop, Claude Code, Cursor) tried as written:
each `mcpServers` block is read from the page, its placeholders replaced (the venv's `engram`, a
temporary data directory, a free port, a test key, the live server's address), and the server it
describes is reached with the MCP SDK's own client — the stdio one started from its command line
exactly as a client would start it. The light test embedder is added to the stdio environment."""

import json
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import ALICE_KEY, free_port, test_settings
from tests.live import live_server

DOC = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"
ENGRAM = Path(sys.prefix) / "bin" / "engram"
DOCUMENTED_ENGRAM = "/path/to/engram/.venv/bin/engram"
DOCUMENTED_URL = "http://localhost:8001"


def documented_servers() -> list[dict[str, Any]]:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), flags=re.S)
    return [json.loads(b)["mcpServers"]["engram"] for b in blocks if "mcpServers" in b]


def test_the_page_covers_the_three_clients_both_ways() -> None:
    text = DOC.read_text()
    for client in ("**Claude Desktop**", "**Claude Code**", "**Cursor**"):
        assert client in text
    servers = documented_servers()
    assert any("command" in s for s in servers) and any("url" in s for s in servers)


@pytest.fixture(scope="module")
async def base_url(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    settings = test_settings(tmp_path_factory.mktemp("configs"), falkordb_url=falkordb_url)
    async with live_server(settings) as url:
        yield url


async def try_session(session: ClientSession) -> dict[str, Any]:
    await session.initialize()
    assert {tool.name for tool in (await session.list_tools()).tools} >= {"remember", "recall"}
    stored = await session.call_tool("store", {"content": "Configured as the docs say"})
    assert not stored.is_error, stored.content
    got = await session.call_tool(
        "get", {"memory_id": json.loads(stored.content[0].text)["memory_id"]}
    )
    return json.loads(got.content[0].text)


@pytest.mark.parametrize(
    "server", [s for s in documented_servers() if "url" in s], ids=lambda s: s.get("type", "url")
)
async def test_each_http_config_connects(base_url: str, server: dict[str, Any]) -> None:
    url = server["url"].replace(DOCUMENTED_URL, base_url)
    headers = {k: v.replace("<your key>", ALICE_KEY) for k, v in server["headers"].items()}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        memory = await try_session(session)
    assert (memory["user_id"], memory["agent_id"]) == ("alice", headers["X-Agent-Id"])


@pytest.mark.integration
@pytest.mark.skipif(not ENGRAM.is_file(), reason=f"{ENGRAM} is not installed (`make install`)")
@pytest.mark.parametrize("server", [s for s in documented_servers() if "command" in s])
async def test_each_stdio_config_starts_and_serves(tmp_path: Path, server: dict[str, Any]) -> None:
    assert server["command"] == DOCUMENTED_ENGRAM
    env = dict(server["env"])
    env["ENGRAM_DATA_DIR"] = str(tmp_path / "data")
    env["FALKORDB_PORT"] = str(free_port())
    env |= {"EMBEDDING_PROVIDER": "hash", "EMBEDDING_DIMENSIONS": "8"}
    env |= {name: os.environ[name] for name in ("PATH", "HOME", "PYTHONPATH") if name in os.environ}
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    params = StdioServerParameters(
        command=str(ENGRAM), args=server["args"], env=env, cwd=str(elsewhere)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        memory = await try_session(session)
    assert (memory["user_id"], memory["agent_id"]) == ("local", server["env"]["ENGRAM_AGENT_ID"])
