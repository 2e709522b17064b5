"""`python -m app.mcp_stdio` (`engram mcp`) over stdio, driven by the MCP SDK's stdio client."""

import hashlib
import json
import os
import sys
import uuid
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import ADMIN_KEY, ALICE_KEY, API_KEYS, BOB_KEY

ROOT = Path(__file__).resolve().parents[2]


def server_params(falkordb_url: str, tmp_path: Path, key: str, graph: str) -> StdioServerParameters:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "FALKORDB_URL": falkordb_url,
        "FALKORDB_GRAPH": graph,
        "ENGRAM_DATA_DIR": str(tmp_path),
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
        "ENGRAM_WORKERS": "0",
        "SYNC_INTERVAL_S": "0",
        "ENGRAM_API_KEYS": json.dumps(API_KEYS),
        "ENGRAM_ADMIN_KEY": ADMIN_KEY,
        "ENGRAM_GENERATE_LOCAL_KEY": "false",
        "ENGRAM_API_KEY": key,
        "ENGRAM_AGENT_ID": "desktop",
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "app.mcp_stdio"], env=env, cwd=str(ROOT)
    )


async def test_stdio_serves_the_tools_as_the_key_s_user(falkordb_url: str, tmp_path: Path):
    graph = f"test_{uuid.uuid4().hex[:12]}"
    params = server_params(falkordb_url, tmp_path, ALICE_KEY, graph)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert "recall" in {tool.name for tool in (await session.list_tools()).tools}
        stored = await session.call_tool("store", {"content": "The desktop agent likes YAML"})
        memory_id = json.loads(stored.content[0].text)["memory_id"]
        got = await session.call_tool("get", {"memory_id": memory_id})
        memory = json.loads(got.content[0].text)
        assert (memory["user_id"], memory["agent_id"]) == ("alice", "desktop")
        found = await session.call_tool("recall", {"query": "YAML"})
        assert memory["id"] in found.content[0].text

    params = server_params(falkordb_url, tmp_path, BOB_KEY, graph)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        refused = await session.call_tool("get", {"memory_id": memory["id"]})
        assert refused.is_error and "not_found" in refused.content[0].text


async def test_a_key_that_is_not_valid_fails_each_tool_call_with_the_reason(
    falkordb_url: str, tmp_path: Path
):
    params = server_params(falkordb_url, tmp_path, "not-a-key", f"test_{uuid.uuid4().hex[:12]}")
    with (tmp_path / "stderr").open("w+") as errors:
        async with (
            stdio_client(params, errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()  # not "Connection closed": the client can show why
            assert "store" in {tool.name for tool in (await session.list_tools()).tools}
            refused = await session.call_tool("store", {"content": "anything"})
            assert refused.is_error
            reason = refused.content[0].text
            assert "ENGRAM_API_KEY / ENGRAM_AGENT_ID: Invalid API key" in reason
            key_id = hashlib.sha256(b"not-a-key").hexdigest()[:8]
            assert key_id in reason and "not-a-key" not in reason
        errors.seek(0)
        assert "ENGRAM_API_KEY / ENGRAM_AGENT_ID: Invalid API key" in errors.read()
