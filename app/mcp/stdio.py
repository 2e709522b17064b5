"""`engram mcp`: Engram's MCP tools over stdio, for a local agent that starts the process.

The process opens the stores itself (the embedded default, or the shared servers named by
FALKORDB_URL / QDRANT_URL) and serves one caller: the key in ENGRAM_API_KEY (on the embedded
default, the local key in the data directory when none is given), in the agent scope of
ENGRAM_AGENT_ID. stdout carries the protocol, so logs go to stderr.
"""

import asyncio
import logging
import os
import sys

from app.auth import Principal, load_or_create_local_key
from app.config import Settings, get_settings
from app.logs import configure_logging
from app.mcp.caller import fixed_caller
from app.mcp.http import build_server
from app.runtime import Runtime, start_runtime

log = logging.getLogger("app.mcp")

KEY_ENV = "ENGRAM_API_KEY"
AGENT_ENV = "ENGRAM_AGENT_ID"


class StartRefused(Exception):
    """The process cannot serve: the message says what to set."""


def _key(settings: Settings, key: str | None) -> str:
    if key:
        return key
    if settings.generate_local_key and not settings.api_keys:
        return load_or_create_local_key(settings.data_dir)[0]
    raise StartRefused(f"Set {KEY_ENV} to the API key this MCP server acts with")


def _principal(runtime: Runtime, key: str) -> Principal:
    assert runtime.keyring is not None
    principal = runtime.keyring.authenticate(key)
    if principal is None:
        raise StartRefused(f"{KEY_ENV} is not a valid API key of this Engram")
    if principal.user_id is None:
        raise StartRefused(f"{KEY_ENV} is the admin key; use a user's API key")
    return principal


async def serve_stdio(settings: Settings, key: str | None, agent: str | None) -> None:
    """Serves until the client closes stdin; runs job workers in-process like the API does."""
    presented = _key(settings, key)
    runtime = await start_runtime(settings)
    try:
        runtime.start_access_flush()
        if settings.workers:
            await runtime.start_workers(settings.workers)
        caller = fixed_caller(runtime, _principal(runtime, presented), agent)
        await build_server(caller).run_stdio_async()
    finally:
        await runtime.stop()


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_format)  # on stderr
    try:
        asyncio.run(serve_stdio(settings, os.environ.get(KEY_ENV), os.environ.get(AGENT_ENV)))
    except StartRefused as exc:
        log.error("%s", exc)
        sys.exit(2)
