"""`engram erase`: remove a user's or a memory's content everywhere (irreversible)."""

from typing import Annotated, Any
from urllib.parse import quote

import typer

from app.cli.context import options
from app.cli.errors import USAGE, CliError
from app.cli.output import console, emit_json, key_value_table


def erase(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option(help="Erase everything of this user.")] = None,
    memory: Annotated[
        str | None, typer.Option(help="Erase this memory (any user) and its summaries.")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Erase content for privacy: every revision, the vectors, entity mentions and derived
    summaries. Tombstones (ids, times, actor, content hash) and audit events remain.

    Backups taken before still hold the content: see docs/operations.md.
    """
    if (user is None) == (memory is None):
        raise CliError("Give exactly one of --user or --memory", USAGE)
    what = f"every memory of user {user!r}" if user else f"memory {memory}"
    if not yes and not typer.confirm(f"Erase {what}? This cannot be undone", default=False):
        raise typer.Abort()
    client = options(ctx).client()
    if user is not None:
        report = client.delete(f"/admin/users/{quote(user, safe='')}")
    else:
        report = client.delete(f"/admin/memories/{quote(str(memory), safe='')}")
    if options(ctx).as_json:
        emit_json(report)
    else:
        _print(what, report)


def _print(what: str, report: dict[str, Any]) -> None:
    rows = {
        "erased": what,
        "memories erased": report.get("erased_count"),
        "derived summaries": len(report.get("derived", [])),
        "vector points deleted": report.get("vectors_deleted"),
        "sessions, patterns, entities": report.get("other_nodes_deleted"),
        "job records deleted": report.get("job_records_deleted"),
        "vector shard rewritten": report.get("vectors_rewritten"),
        "FalkorDB log rewritten": report.get("log_rewritten"),
        "data files clean": _disk_row(report.get("disk")),
    }
    console.print(key_value_table("Erasure", rows))


def _disk_row(disk: dict[str, Any] | None) -> str:
    if disk is None:
        return "not checked (no store keeps its files in the data directory)"
    if disk["clean"]:
        return f"yes, {disk['checked_files']} files searched ({disk['clean_at']})"
    return "NO, still in: " + ", ".join(disk["found_in"])
