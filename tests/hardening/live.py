"""Engram served by a real uvicorn server in a thread, for what only a socket shows (keep-alive,
connection resets) and for fuzzing."""

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from app.http_server import EnvelopeHttpToolsProtocol


@contextmanager
def serve(app: FastAPI, start_timeout_s: float = 60.0) -> Iterator[str]:
    """Serves `app` (with its lifespan) on a free port of 127.0.0.1; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        loop="asyncio",
        timeout_graceful_shutdown=2,
        http=EnvelopeHttpToolsProtocol,  # as `python -m app` serves
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError("Engram did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
