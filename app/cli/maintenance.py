"""Maintenance over the server's admin jobs: reembed, sync, reprocess, fsck, migrate, job,
index-vectors."""

import time
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from app.cli.context import options
from app.cli.errors import FAILED
from app.cli.http import LONG
from app.cli.jobs import POLL_S, RateColumn, follow
from app.cli.output import console, emit_json, key_value_table

Wait = Annotated[bool, typer.Option("--wait/--no-wait", help="Follow the job to its end.")]


def reembed(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option(help="Only this user's memories.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many memories.")] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=100, help="Per embedding call.")] = 32,
    force: Annotated[
        bool, typer.Option("--force/--missing-only", help="All, or only those without a vector.")
    ] = True,
    wait: Wait = True,
) -> None:
    """Re-embed memories with the current model (a resumable job with progress)."""
    body = {"user_id": user, "limit": limit, "batch_size": batch_size, "force": force}
    # The command follows the job itself (a progress bar), so the server need not wait for it.
    _run_job(ctx, "/admin/reembed?wait=false", body, "re-embedding", wait)


def sync(
    ctx: typer.Context,
    repair: Annotated[
        bool, typer.Option("--repair/--check", help="Repair the drift, or only report it.")
    ] = True,
    wait: Wait = True,
) -> None:
    """Compare the graph with the vector index (missing, orphan, stale points) and repair."""
    _run_job(ctx, "/admin/sync", {"repair": repair}, "syncing", wait)


def job(ctx: typer.Context, job_id: Annotated[str, typer.Argument(help="The job's id.")]) -> None:
    """Follow a job (again) until it ends, and print its result."""
    opts = options(ctx)
    _print_result(opts.as_json, follow(opts.client(), job_id, job_id, quiet=opts.as_json))


def reprocess(
    ctx: typer.Context,
    ids: Annotated[list[str] | None, typer.Option("--id", help="A memory id (repeat).")] = None,
    user: Annotated[str | None, typer.Option(help="This user's memories.")] = None,
    status: Annotated[
        str | None, typer.Option(help="Only memories in this enrichment state (e.g. failed).")
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many.")] = None,
    wait: Wait = True,
) -> None:
    """Run enrichment again (entities, summary, links, classification) and follow the queue."""
    opts = options(ctx)
    body = {"ids": ids or None, "user_id": user, "enrichment_status": status, "limit": limit}
    accepted = opts.client().post(
        "/enrichment/reprocess", json={k: v for k, v in body.items() if v is not None}
    )
    if wait and accepted.get("job_ids"):
        _follow_queue(ctx, "enrich", len(accepted["job_ids"]))
    if opts.as_json:
        emit_json(accepted)
    else:
        rows = {
            "memories": accepted.get("count"),
            "jobs": len(accepted.get("job_ids", [])),
            "missing ids": ", ".join(accepted.get("missing", [])) or "none",
        }
        console.print(key_value_table("Reprocess", rows))


def fsck(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option(help="Only this user's memories.")] = None,
    apply: Annotated[bool, typer.Option(help="Repair the safe findings.")] = False,
) -> None:
    """Check the store for inconsistencies (POST /admin/fsck).

    Exits 1 if findings remain unrepaired.
    """
    opts = options(ctx)
    report = opts.client().post("/admin/fsck", json={"user_id": user, "apply": apply})
    if opts.as_json:
        emit_json(report)
    else:
        _print_fsck(report)
    if sum(report.get("counts", {}).values()) > report.get("applied", 0):
        raise typer.Exit(FAILED)


def migrate(ctx: typer.Context) -> None:
    """Apply pending schema migrations and show the schema level."""
    opts = options(ctx)
    report = opts.client().post("/admin/migrate")
    if opts.as_json:
        emit_json(report)
        return
    rows = {
        "level": report.get("level"),
        "applied now": ", ".join(report["applied"]) or "none",
        "known": len(report.get("migrations", [])),
    }
    console.print(key_value_table("Schema", rows))


def index_vectors(ctx: typer.Context) -> None:
    """Build the embedded vector index's HNSW graphs (POST /admin/vectors/index).

    Searches are exact until then, and slow down with the store. The build answers no other
    request while it runs (about 2 minutes at 100k memories): use --data-dir on a stopped store.
    """
    opts = options(ctx)
    report = opts.client().post("/admin/vectors/index", timeout=LONG)
    if opts.as_json:
        emit_json(report)
        return
    rows = {
        "engine": report["engine"],
        "built now": report["built"] or "no: the engine indexes by itself",
        "seconds": report["seconds"],
        "points": report["points"],
        "segments with HNSW": f"{report['indexed_segments']} of {report['segments']}",
    }
    console.print(key_value_table("Vector index", rows))


def _run_job(ctx: typer.Context, path: str, body: dict[str, Any], label: str, wait: bool) -> None:
    opts = options(ctx)
    accepted = opts.client().post(path, json=body)
    if not wait:
        if opts.as_json:
            emit_json(accepted)
        else:
            console.print(f"queued job {accepted['job_id']}")
        return
    _print_result(
        opts.as_json, follow(opts.client(), accepted["job_id"], label, quiet=opts.as_json)
    )


def _print_result(as_json: bool, report: dict[str, Any]) -> None:
    if as_json:
        emit_json(report)
        return
    result = report.get("result")
    rows = {"job": report["job_id"], "state": report["state"]}
    if isinstance(result, dict):
        rows |= {k: v for k, v in result.items() if not isinstance(v, list | dict)}
    console.print(key_value_table("Job", rows))


def _follow_queue(ctx: typer.Context, kind: str, total: int) -> None:
    """Progress of a batch of jobs of one kind, from the queue's outstanding count."""
    opts = options(ctx)
    columns = (TextColumn(kind), BarColumn(), MofNCompleteColumn(), RateColumn())
    with Progress(*columns, console=console, disable=opts.as_json, transient=True) as progress:
        task = progress.add_task(kind, total=total)
        while True:
            figures = opts.client().get("/enrichment/status")["jobs"].get(kind, {})
            left = sum(figures.get(k, 0) for k in ("pending", "scheduled", "in_flight"))
            progress.update(task, completed=max(total - left, 0))
            if left == 0:
                return
            time.sleep(POLL_S)


def _print_fsck(report: dict[str, Any]) -> None:
    rows = {
        "checked": report.get("checked"),
        "truncated": report.get("truncated"),
        "applied": report.get("applied"),
    }
    console.print(key_value_table("fsck", rows))
    table = Table(title="Findings", title_justify="left")
    table.add_column("type")
    table.add_column("count", justify="right")
    for kind, count in sorted(report.get("counts", {}).items()):
        table.add_row(kind, str(count))
    console.print(table)
