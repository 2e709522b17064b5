"""The global options, shared by every command through the Typer context."""

from dataclasses import dataclass, field
from pathlib import Path

import typer

from app.cli import embedded
from app.cli.errors import CliError
from app.cli.http import EngramClient


@dataclass
class Options:
    url: str
    admin_key: str | None
    as_json: bool
    timeout_s: float
    data_dir: Path | None = None
    _client: EngramClient | None = field(default=None, repr=False)
    _server: embedded.EmbeddedServer | None = field(default=None, repr=False)

    def client(self) -> EngramClient:
        """The server's client; with --data-dir, Engram is started on it first."""
        if self._client is None:
            url, key = self.url, self.admin_key
            if self.data_dir is not None:
                self._server = embedded.start(self.data_dir)
                url, key = self._server.url, self._server.admin_key
            self._client = EngramClient(url, key, self.timeout_s)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._server is not None:
            self._server.stop()


def options(ctx: typer.Context) -> Options:
    """The global options from any command's context."""
    root = ctx.find_root()
    if not isinstance(root.obj, Options):
        raise CliError("internal: the global options were not parsed")
    return root.obj
