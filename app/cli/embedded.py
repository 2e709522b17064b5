"""`--data-dir`: the command works on a stopped embedded data directory by starting Engram on
it for the command's duration (`python -m app` on free local ports, with a one-time admin key,
no workers and no scheduled sync; the queued jobs wait in the directory for the real server).

The directory records the embedding settings its vectors were made with (`embedding.json`,
written the first time a command starts Engram on it), so a command run with other settings is
refused with one line naming both before anything starts. A server that does not start for
another reason is reported by the last line of its log, not its traceback.
"""

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx
from pydantic import ValidationError

from app.children import popen_tied
from app.cli.errors import FAILED, CliError
from app.config import Settings
from app.storage.data_dir_lock import held_by

START_TIMEOUT_S = 300.0
# Set for the operator's own server; the embedded default must not reach them.
SHARED_STORES = ("FALKORDB_URL", "QDRANT_URL", "ENGRAM_URL")
RECORD = "embedding.json"
# The local model and the hash embedder are 384-d unless EMBEDDING_DIMENSIONS says otherwise
# (app/embeddings); an OpenAI-compatible server's dimension is always configured.
DEFAULT_DIMENSION = 384
# The last line of a Python traceback: `package.module.SomeError: what went wrong`.
EXCEPTION_LINE = re.compile(
    r"^(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Refused|Mismatch)\b: "
)


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
    check_embedding(data_dir)
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
    # The server's stderr is read only if it fails to start (then its reason is the message).
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as log:
        command = [sys.executable, "-m", "app"]
        process = popen_tied(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
        server = EmbeddedServer(f"http://127.0.0.1:{port}", key, process)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _answers(server.url):
            if process.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise CliError(f"Engram did not start on {data_dir}: {_why(log)}", FAILED)
            time.sleep(0.2)
    record_embedding(data_dir, server)
    return server


def configured_embedding() -> dict[str, Any]:
    """The embedding settings this command would start Engram with (without loading a model)."""
    try:
        settings = Settings()
    except ValidationError as exc:  # the server would refuse them too; it says why
        raise CliError(f"The settings are not valid: {exc.errors()[0]['msg']}", FAILED) from None
    dimension = settings.embedding_dimensions
    if dimension is None and settings.embedding_provider != "openai":
        dimension = DEFAULT_DIMENSION
    return {
        "provider": settings.embedding_provider,
        "model": settings.embedding_model,
        "dimension": dimension,
    }


def check_embedding(data_dir: Path) -> None:
    """Refuses, in one line, settings other than those the directory's vectors were made with."""
    recorded = _recorded(data_dir)
    if recorded is None:
        return
    wanted = configured_embedding()
    same = (wanted["provider"], wanted["dimension"]) == (
        recorded.get("provider"),
        recorded.get("dimension"),
    )
    if same and wanted["provider"] == "openai":
        same = wanted["model"] == recorded.get("model")
    if not same:
        raise CliError(
            f"{data_dir} holds vectors made with {_describe(recorded)}, but this command is set "
            f"up for {_describe(wanted)}: run it with {_settings_of(recorded)} (the settings it "
            "was made with)",
            FAILED,
        )


def _settings_of(recorded: dict[str, Any]) -> str:
    """The environment that reproduces a recorded embedder (the model matters for OpenAI's
    provider only: the others run one model each)."""
    names = {"EMBEDDING_PROVIDER": recorded.get("provider")}
    if recorded.get("provider") == "openai":
        names["EMBEDDING_MODEL"] = recorded.get("model")
    names["EMBEDDING_DIMENSIONS"] = recorded.get("dimension")
    return " ".join(f"{name}={value}" for name, value in names.items())


def record_embedding(data_dir: Path, server: EmbeddedServer) -> None:
    """Writes what the started server embeds with, the first time a command opens the
    directory (a directory made by the command: at its creation)."""
    path = data_dir / RECORD
    if path.exists():
        return
    health = httpx.get(
        f"{server.url}/health", headers={"Authorization": f"Bearer {server.admin_key}"}, timeout=30
    ).json()
    embedder = health.get("embedder") or {}
    fields = {name: embedder.get(name) for name in ("provider", "model", "dimension")}
    if all(fields.values()):
        path.write_text(json.dumps(fields, indent=2) + "\n")


def _recorded(data_dir: Path) -> dict[str, Any] | None:
    try:
        found = json.loads((data_dir / RECORD).read_text())
    except (FileNotFoundError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _describe(embedding: dict[str, Any]) -> str:
    model = f" {embedding['model']}" if embedding.get("model") else ""
    dimension = f", {embedding['dimension']}-d" if embedding.get("dimension") else ""
    return f"{embedding.get('provider')}{model}{dimension}"


def _why(log: IO[str]) -> str:
    """The reason in the failed server's log (JSON or text lines): the last exception's
    message (a refusal says what to do), on one line."""
    log.seek(0)
    records = [_message(line) for line in log.read().splitlines() if line.strip()]
    for record in reversed(records):
        lines = record.splitlines()
        for index in range(len(lines) - 1, -1, -1):
            if EXCEPTION_LINE.match(lines[index]):
                reason = [lines[index].split(": ", 1)[1], *lines[index + 1 :]]
                return " ".join(" ".join(reason).split())
    return records[-1] if records else "it exited without saying why"


def _message(line: str) -> str:
    try:
        record = json.loads(line)
    except ValueError:
        return line
    return str(record.get("message", line)) if isinstance(record, dict) else line


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/ready", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
