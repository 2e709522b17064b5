"""The `engram` Typer app: global options, and every command registered in one place.

A command is a function in its own module taking `ctx: typer.Context` first; it reaches the
server through `app.cli.context.options(ctx).client()` and prints through app.cli.output.
Register it with `command()` at the end of this module (a CliError then exits with its code).
"""

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from app.cli import backup, erase, keys, maintenance, portable, status
from app.cli.context import Options
from app.cli.errors import exits_on_error

DEFAULT_URL = "http://127.0.0.1:8001"

cli = typer.Typer(
    name="engram",
    help=(
        "Operate Engram, the memory service for AI agents.\n\n"
        "Exit codes: 0 ok, 1 the operation failed, 2 usage error, 3 server unreachable, "
        "4 key missing or refused."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@cli.callback()
def root(
    ctx: typer.Context,
    url: Annotated[
        str, typer.Option(envvar="ENGRAM_URL", help="The Engram server's base URL.")
    ] = DEFAULT_URL,
    admin_key: Annotated[
        str | None,
        typer.Option(
            envvar="ENGRAM_ADMIN_KEY", help="The admin key (prefer the environment variable)."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON document instead of tables.")
    ] = False,
    timeout: Annotated[
        float, typer.Option(min=1, help="Seconds to wait for each HTTP response.")
    ] = 120.0,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            file_okay=False,
            help="Work on this stopped embedded data directory (Engram is started on it for the "
            "command) instead of --url.",
        ),
    ] = None,
) -> None:
    ctx.obj = Options(
        url=url, admin_key=admin_key or None, as_json=as_json, timeout_s=timeout, data_dir=data_dir
    )
    ctx.call_on_close(ctx.obj.close)


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Listen address (ENGRAM_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Listen port (ENGRAM_PORT).")] = None,
    data_dir: Annotated[str | None, typer.Option(help="Data directory (ENGRAM_DATA_DIR).")] = None,
) -> None:
    """Start the Engram server (the same as `python -m app`), configured from the environment."""
    _exec_module("app", {"ENGRAM_HOST": host, "ENGRAM_PORT": port, "ENGRAM_DATA_DIR": data_dir})


@cli.command()
def worker() -> None:
    """Start a job worker process against shared servers (the same as `python -m app.worker`)."""
    _exec_module("app.worker", {})


@cli.command()
def mcp(
    agent: Annotated[
        str | None, typer.Option(help="Agent scope of every call (ENGRAM_AGENT_ID).")
    ] = None,
) -> None:
    """Serve Engram's MCP tools over stdio for a local agent, acting with the key in
    ENGRAM_API_KEY (the same as `python -m app.mcp_stdio`; see docs/mcp.md)."""
    _exec_module("app.mcp_stdio", {"ENGRAM_AGENT_ID": agent})


def _exec_module(module: str, overrides: dict[str, object]) -> None:
    """Replaces this process with `python -m module`, so signals and exit codes are its own."""
    for name, value in overrides.items():
        if value is not None:
            os.environ[name] = str(value)
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", module])


def command(name: str, function: Callable[..., None]) -> None:
    cli.command(name)(exits_on_error(function))


command("status", status.status)
command("backup", backup.backup)
command("restore", backup.restore)
command("recover-from-vectors", backup.recover_from_vectors)
command("erase", erase.erase)
command("export", portable.export)
command("import", portable.import_)
command("reembed", maintenance.reembed)
command("sync", maintenance.sync)
command("reprocess", maintenance.reprocess)
command("fsck", maintenance.fsck)
command("migrate", maintenance.migrate)
command("index-vectors", maintenance.index_vectors)
command("job", maintenance.job)
cli.add_typer(keys.keys, name="keys")


def main() -> None:
    cli()
