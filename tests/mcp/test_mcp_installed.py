"""The documented stdio command, `engram mcp`, as an MCP client starts it: the venv's installed
script, from a directory that is not the checkout, on a fresh data directory of its own."""

import json
import os
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import free_port

ENGRAM = Path(sys.prefix) / "bin" / "engram"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not ENGRAM.is_file(),
        reason=f"{ENGRAM} is not installed: `make install` installs the project into the venv",
    ),
]


def documented_params(cwd: Path, data_dir: Path) -> StdioServerParameters:
    """docs/mcp.md's stdio configuration: the embedded default, its own data dir and port."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", str(cwd)),
        "ENGRAM_DATA_DIR": str(data_dir),
        "FALKORDB_PORT": str(free_port()),
        "ENGRAM_AGENT_ID": "desktop",
        # The hashed embedder keeps the test light; the rest is the embedded default.
        "EMBEDDING_PROVIDER": "hash",
        "EMBEDDING_DIMENSIONS": "8",
    }
    return StdioServerParameters(command=str(ENGRAM), args=["mcp"], env=env, cwd=str(cwd))


async def test_engram_mcp_serves_from_any_directory_on_a_fresh_data_dir(tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    data_dir = tmp_path / "engram-data"
    params = documented_params(elsewhere, data_dir)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        stored = await session.call_tool("store", {"content": "The desktop agent likes TOML"})
        memory_id = json.loads(stored.content[0].text)["memory_id"]
        got = await session.call_tool("get", {"memory_id": memory_id})
        memory = json.loads(got.content[0].text)
    assert (memory["user_id"], memory["agent_id"]) == ("local", "desktop")
    assert (data_dir / "api_key").is_file()
    assert (data_dir / "qdrant").is_dir()
    assert list(elsewhere.iterdir()) == [], "nothing is written to the working directory"
