"""Engram served by uvicorn on a free local port, for tests that need a real HTTP server (MCP
clients, generated SDKs, plugins): the same app `python -m app` serves, in the test's loop."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn

from app.config import Settings
from app.http_server import EnvelopeHttpToolsProtocol
from app.main import create_app
from tests.conftest import free_port


@asynccontextmanager
async def live_server(settings: Settings, app: Any = None) -> AsyncIterator[str]:
    """Yields the server's base URL; stops it (and its stores) on exit. `app`: one the test made
    with create_app(settings), to reach its stores while it serves."""
    config = uvicorn.Config(
        app or create_app(settings),
        host="127.0.0.1",
        port=free_port(),
        log_level="warning",
        lifespan="on",
        http=EnvelopeHttpToolsProtocol,
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        if serving.done():
            serving.result()  # raises what stopped it
            raise RuntimeError("uvicorn stopped before it started")
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        await serving
