"""A real Engram server on a free port (uvicorn in a thread) for the `engram` command's tests.

The command speaks HTTP, so these tests run it with Typer's CliRunner against a listening
server backed by the session's FalkorDB server and a Qdrant Edge shard.
"""

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from typer.testing import CliRunner, Result

from app.cli import cli
from app.config import Settings
from app.main import create_app
from tests.conftest import ADMIN_KEY, free_port, test_settings


@dataclass
class LiveServer:
    url: str
    settings: Settings

    def run(
        self,
        *args: str,
        admin_key: str | None = ADMIN_KEY,
        input: str | None = None,
        env: dict[str, str] | None = None,
    ) -> Result:
        """`engram <args>` against this server (`input`: what the operator types)."""
        variables = {"ENGRAM_URL": self.url, "ENGRAM_ADMIN_KEY": admin_key or "", **(env or {})}
        return CliRunner().invoke(cli, list(args), env=variables, input=input)


class _ServerThread:
    def __init__(self, settings: Settings, port: int) -> None:
        config = uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=port,
            loop="asyncio",
            log_level="warning",
            access_log=False,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="engram-live", daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 180
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("The Engram server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)


def start_live_server(settings: Settings) -> tuple[LiveServer, _ServerThread]:
    port = free_port()
    thread = _ServerThread(settings, port)
    thread.start()
    return LiveServer(f"http://127.0.0.1:{port}", settings), thread


@pytest.fixture(scope="module")
def live_server(
    falkordb_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """A listening Engram (fresh graph and shard) for one test module."""
    data_dir: Path = tmp_path_factory.mktemp("engram-live")
    server, thread = start_live_server(test_settings(data_dir, falkordb_url=falkordb_url))
    try:
        yield server
    finally:
        thread.stop()
