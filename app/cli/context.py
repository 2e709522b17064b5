"""The global options, shared by every command through the Typer context."""

from dataclasses import dataclass, field

import typer

from app.cli.errors import CliError
from app.cli.http import EngramClient


@dataclass
class Options:
    url: str
    admin_key: str | None
    as_json: bool
    timeout_s: float
    _client: EngramClient | None = field(default=None, repr=False)

    def client(self) -> EngramClient:
        if self._client is None:
            self._client = EngramClient(self.url, self.admin_key, self.timeout_s)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def options(ctx: typer.Context) -> Options:
    """The global options from any command's context."""
    root = ctx.find_root()
    if not isinstance(root.obj, Options):
        raise CliError("internal: the global options were not parsed")
    return root.obj
