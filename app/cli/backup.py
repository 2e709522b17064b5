"""`engram backup` and `engram restore`: the archive of GET /backup, and POST /admin/restore."""

import hashlib
import json
import tarfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import (
    DownloadColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TransferSpeedColumn,
)
from rich.table import Table

from app.cli.context import options
from app.cli.errors import FAILED, CliError
from app.cli.http import LONG
from app.cli.output import console, emit_json, key_value_table

CHUNK = 1 << 20


def backup(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the .tar.gz.")],
    include: Annotated[
        str, typer.Option(help="What to include: falkordb, qdrant (the vectors), or both.")
    ] = "falkordb,qdrant",
) -> None:
    """Take a consistent online backup (GET /backup) into one archive with a manifest."""
    opts = options(ctx)
    partial = out.with_name(out.name + ".partial")
    digest = hashlib.sha256()
    params = {"include": include}
    try:
        with (
            opts.client().stream("GET", "/backup", params=params, timeout=LONG) as response,
            _bytes_progress(opts.as_json, "downloading") as progress,
            partial.open("wb") as handle,
        ):
            task = progress.add_task("backup", total=None)
            for block in response.iter_bytes(CHUNK):
                handle.write(block)
                digest.update(block)
                progress.update(task, advance=len(block))
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(out)
    manifest = read_manifest(out)
    summary = {
        "file": str(out),
        "bytes": out.stat().st_size,
        "sha256": digest.hexdigest(),
        "manifest": manifest,
    }
    if opts.as_json:
        emit_json(summary)
        return
    rows = {
        "file": out,
        "size": f"{summary['bytes']:,} bytes",
        "sha256": summary["sha256"],
        "created_at": manifest.get("created_at"),
        "schema": _schema(manifest),
        "embedding": manifest.get("embedding", {}).get("model"),
    }
    console.print(key_value_table("Backup written", rows))
    console.print(_counts_table(manifest.get("counts", {})))


def restore(
    ctx: typer.Context,
    archive: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A backup .tar.gz.")],
    force: Annotated[
        bool, typer.Option(help="Replace everything the server holds (it must be empty else).")
    ] = False,
) -> None:
    """Restore a backup into a running server (POST /admin/restore) and prove the result.

    Exits 1 if the server refuses (not empty, damaged archive) or the restored store does not
    equal the backup's manifest (counts per kind, each memory's digest).
    """
    opts = options(ctx)
    read_manifest(archive)  # a local check first: a wrong file fails before the upload
    with archive.open("rb") as handle:
        report = opts.client().post(
            "/admin/restore",
            params={"force": str(force).lower()},
            content=_chunks(handle),
            headers={"Content-Type": "application/gzip"},
            timeout=LONG,
            accept=(500,),
        )
    if opts.as_json:
        emit_json(report)
    else:
        _print_restore(report)
    if not report.get("verified"):
        raise typer.Exit(FAILED)


def read_manifest(path: Path) -> dict[str, Any]:
    """The archive's manifest, or a CliError saying why the file is not a backup."""
    try:
        with tarfile.open(path, "r:gz") as tar:
            member = tar.extractfile("manifest.json")
            if member is None:
                raise KeyError("manifest.json")
            return json.loads(member.read())
    except (tarfile.TarError, KeyError, ValueError, OSError) as exc:
        raise CliError(f"{path} is not an Engram backup archive: {exc}") from exc


def _chunks(handle: Any) -> Any:
    while block := handle.read(CHUNK):
        yield block


def _bytes_progress(quiet: bool, label: str) -> Progress:
    return Progress(
        TextColumn(label),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=quiet,
        transient=True,
    )


def _schema(manifest: dict[str, Any]) -> str:
    migrations = manifest.get("schema", {}).get("migrations", [])
    return migrations[-1] if migrations else "(none)"


def _counts_table(counts: dict[str, Any]) -> Table:
    table = Table(title="Counts per kind", title_justify="left")
    table.add_column("kind")
    table.add_column("count", justify="right")
    for kind, count in counts.get("nodes", {}).items():
        table.add_row(kind, f"{count:,}")
    for kind, count in counts.get("relationships", {}).items():
        table.add_row(f"-[{kind}]->", f"{count:,}")
    for key in ("memories", "vectors"):
        if key in counts:
            table.add_row(f"({key})", f"{counts[key]:,}")
    return table


def _print_restore(report: dict[str, Any]) -> None:
    verified = report.get("verified")
    rows = {
        "verified": "yes: counts and every memory's digest equal the backup" if verified else "NO",
        "memories": report.get("memories"),
        "vectors restored": report.get("vectors_restored"),
        "queued for embedding": report.get("queued_for_embedding"),
        "migrations applied": ", ".join(report.get("migrations_applied", [])) or "none",
        "replaced existing data": report.get("replaced_existing"),
    }
    console.print(key_value_table("Restore", rows))
    console.print(_counts_table(report.get("counts", {})))
    if not verified:
        console.print_json(
            data={
                "count_differences": report.get("count_differences"),
                "mismatched_memories": report.get("mismatched_memories", [])[:20],
            }
        )


def recover_from_vectors(
    ctx: typer.Context,
    force: Annotated[
        bool, typer.Option(help="Run on a graph that holds memories: add only the missing ones.")
    ] = False,
) -> None:
    """Rebuild lost memories from the vector points (content and fields).

    Revisions, links, entities and history are not in the points and do not come back; the
    report lists what could not be recovered. Nothing is ever deleted.
    """
    opts = options(ctx)
    report = opts.client().post(
        "/admin/recover-from-vectors", params={"force": str(force).lower()}, timeout=LONG
    )
    if opts.as_json:
        emit_json(report)
        return
    rows = {
        "points read": report["points"],
        "memories recovered": report["recovered"],
        "already in the graph": report["already_in_graph"],
        "unrecoverable points": report["unrecoverable"],
        "queued for embedding": report["queued_for_embedding"],
        "not in the points": ", ".join(report["not_recoverable_from_points"]),
    }
    console.print(key_value_table("Recovery from vectors", rows))
    for lost in report.get("unrecoverable_sample", []):
        console.print(f"  {lost['id']}: {lost['reason']}", highlight=False)
