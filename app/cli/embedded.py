"""`--data-dir`: the command works on a stopped embedded data directory by starting Engram on
it for the command's duration (`python -m app` on free local ports, with a one-time admin key,
no workers and no scheduled sync; the queued jobs wait in the directory for the real server)."""

import os
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from app.children import popen_tied
from app.cli.errors import FAILED, CliError
from app.storage.ownership import held_by

START_TIMEOUT_S = 300.0
# Set for the operator's own server; the embedded default must not reach them.
SHARED_STORES = ("FALKORDB_URL", "QDRANT_URL", "ENGRAM_URL")


@dataclass
class EmbeddedServer:
    url: str
    admin_key: str
    process: subprocess.Popen

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(data_dir: Path) -> EmbeddedServer:
    """Engram on `data_dir`, answering on 127.0.0.1; refuses if it does not start."""
    owner = held_by(data_dir)
    if owner is not None:
        raise CliError(
            f"{data_dir} is in use by the Engram running as pid {owner.get('pid')} "
            f"(ENGRAM_PORT {owner.get('port')}): give this command --url and that server's "
            "address instead of --data-dir, or stop it first",
            FAILED,
        )
    port, key = _free_port(), "engram_cli_" + secrets.token_urlsafe(24)
    env = {k: v for k, v in os.environ.items() if k not in SHARED_STORES}
    env.update(
        ENGRAM_DATA_DIR=str(data_dir),
        ENGRAM_HOST="127.0.0.1",
        ENGRAM_PORT=str(port),
        FALKORDB_PORT=str(_free_port()),
        ENGRAM_ADMIN_KEY=key,
        ENGRAM_WORKERS="0",
        SYNC_INTERVAL_S="0",
        ENGRAM_LOG_LEVEL="warning",
    )
    process = popen_tied([sys.executable, "-m", "app"], env=env, stdout=subprocess.DEVNULL)
    server = EmbeddedServer(f"http://127.0.0.1:{port}", key, process)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not _answers(server.url):
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise CliError(
                f"Engram did not start on {data_dir} (exit code {process.returncode}); is a "
                "server already running on it? Stop it, or use --url instead",
                FAILED,
            )
        time.sleep(0.2)
    return server


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/ready", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
