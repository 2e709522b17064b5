"""`engram export` and `engram import`: memories as JSON Lines, portable between servers."""

import json
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Annotated, Any

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from app.cli import automem
from app.cli.context import options
from app.cli.http import LONG
from app.cli.output import console, emit_json, key_value_table

CHUNK = 1 << 20


def export(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", "-o", help="The .jsonl file to write.")],
    user: Annotated[str | None, typer.Option(help="Only this user's memories.")] = None,
) -> None:
    """Export live memories (with revisions, links, entities) as JSON Lines, one per line."""
    opts = options(ctx)
    partial, lines = out.with_name(out.name + ".partial"), 0
    params = {"user_id": user} if user else {}
    try:
        with (
            opts.client().stream("GET", "/admin/export", params=params, timeout=LONG) as resp,
            _progress(opts.as_json) as progress,
            partial.open("wb") as handle,
        ):
            task = progress.add_task("memories exported", total=None)
            for block in resp.iter_bytes(CHUNK):
                handle.write(block)
                lines += block.count(b"\n")
                progress.update(task, completed=lines)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(out)
    summary = {"file": str(out), "memories": lines, "bytes": out.stat().st_size}
    if opts.as_json:
        emit_json(summary)
    else:
        console.print(key_value_table("Export written", summary))


def import_(
    ctx: typer.Context,
    source: Annotated[
        Path,
        typer.Argument(
            exists=True,
            dir_okay=False,
            help="Engram's JSON Lines, or AutoMem's backup (.tar.gz, falkordb_*.json[.gz]).",
        ),
    ],
    user: Annotated[
        str | None,
        typer.Option(help="Owner of the memories (required for AutoMem's; replaces Engram's)."),
    ] = None,
) -> None:
    """Import memories from Engram's JSON Lines or AutoMem's backup.

    Ids are kept; duplicates (same id, or same content for the owner) are skipped; the whole
    file is checked before anything is written; the memories are then embedded in the
    background.
    """
    opts = options(ctx)
    params = {"user_id": user} if user else {}
    dump = automem.graph_dump(source)
    with ExitStack() as stack:
        body: IO[bytes]
        if dump is None:
            body = stack.enter_context(source.open("rb"))
        else:
            body = stack.enter_context(tempfile.TemporaryFile())
            _write_lines(automem.import_lines(dump), body)
        report = opts.client().post(
            "/admin/import",
            params=params,
            content=_chunks(body),
            timeout=LONG,
            headers={"Content-Type": "application/x-ndjson"},
        )
    report["source_format"] = "engram" if dump is None else "automem"
    if opts.as_json:
        emit_json(report)
    else:
        console.print(key_value_table("Import", {k: v for k, v in report.items() if k != "status"}))


def _write_lines(lines: Iterator[dict[str, Any]], handle: IO[bytes]) -> None:
    for line in lines:
        handle.write(json.dumps(line).encode() + b"\n")
    handle.seek(0)


def _chunks(handle: Any) -> Iterator[bytes]:
    while block := handle.read(CHUNK):
        yield block


def _progress(quiet: bool) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.completed:,} {task.description}"),
        TimeElapsedColumn(),
        console=console,
        disable=quiet,
        transient=True,
    )
