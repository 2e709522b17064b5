"""`engram mcp` (`python -m app.mcp_stdio`): the MCP tools over stdio, for a local agent.

The process runs the API in-process (no port) on the stores it opens itself: the embedded
default, or the shared servers named by FALKORDB_URL / QDRANT_URL. It serves one caller: the
key in ENGRAM_API_KEY (on the embedded default with no keys configured, the local key in the
data directory), in the agent scope of ENGRAM_AGENT_ID. stdout carries the protocol, so logs go
to stderr.
"""

import asyncio
import hashlib
import logging
import os
import sys

import httpx

from app.auth import load_or_create_local_key
from app.config import Settings, get_settings
from app.logs import configure_logging
from app.main import create_app
from app.mcp.caller import Caller, fixed_caller, in_process, key_headers, refusing_caller
from app.mcp.http import build_server
from app.refusals import StartupRefused

log = logging.getLogger("app.mcp")

KEY_ENV = "ENGRAM_API_KEY"
AGENT_ENV = "ENGRAM_AGENT_ID"


def _key(settings: Settings, key: str | None) -> str | None:
    if key:
        return key
    if settings.generate_local_key and not settings.api_keys:
        return load_or_create_local_key(settings.data_dir)[0]
    return None


async def serve_stdio(settings: Settings, key: str | None, agent: str | None) -> None:
    """Serves until the client closes stdin; runs job workers in-process like the API does.

    Without a key that works the server still completes the handshake and lists its tools, and
    every call fails with what to set (also logged on stderr)."""
    presented = _key(settings, key)
    app = create_app(settings)
    async with app.router.lifespan_context(app), in_process(app) as api:
        caller = Caller(api, key_headers(presented, agent) if presented else {})
        reason = await _refusal(api, caller, presented)
        if reason is not None:
            log.error("%s", reason)
        resolver = fixed_caller(caller) if reason is None else refusing_caller(reason)
        await build_server(resolver).run_stdio_async()


async def _refusal(api: httpx.AsyncClient, caller: Caller, presented: str | None) -> str | None:
    """Why this process cannot act for its caller, or None when the key and agent work."""
    if presented is None:
        return f"The Engram MCP server has no API key: set {KEY_ENV} and restart it"
    answer = await api.get("/core", headers=caller.headers)
    if answer.status_code not in (400, 401, 403):
        return None
    key_id = hashlib.sha256(presented.encode()).hexdigest()[:8]  # as the audit log names keys
    return (
        f"{KEY_ENV} / {AGENT_ENV}: {answer.json()['message']} (the key with id {key_id}); set "
        f"{KEY_ENV} to a key of this server and restart the Engram MCP server"
    )


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_format)  # on stderr
    try:
        asyncio.run(serve_stdio(settings, os.environ.get(KEY_ENV), os.environ.get(AGENT_ENV)))
    except StartupRefused as exc:  # the message says what to do: no traceback
        log.error("%s", exc)
        sys.exit(2)


if __name__ == "__main__":
    main()
