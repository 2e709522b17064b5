"""`engram status`: the server's health, counts and job queues in one view."""

from typing import Any

import typer
from rich.table import Table

from app.cli.context import options
from app.cli.errors import FAILED
from app.cli.output import console, emit_json, key_value_table


def status(ctx: typer.Context) -> None:
    """Health of each store and the embedder, memory and vector counts, and the job queues.

    Exits 1 when the server reports itself degraded, so it can serve as a health check.
    """
    opts = options(ctx)
    client = opts.client()
    health = client.get("/health")
    jobs = client.get("/enrichment/status") if client.has_key else None
    if opts.as_json:
        emit_json({"url": client.url, "health": health, "jobs": jobs})
    else:
        _print(client.url, health, jobs)
    if health.get("degraded"):
        raise typer.Exit(FAILED)


def _print(url: str, health: dict[str, Any], jobs: dict[str, Any] | None) -> None:
    embedder = health.get("embedder", {})
    rows = {
        "server": url,
        "status": health.get("status"),
        "falkordb": health.get("falkordb"),
        "qdrant": health.get("qdrant"),
        "embedder": "{} ({}, {})".format(
            embedder.get("state"), embedder.get("model"), embedder.get("dimension")
        ),
        "memories": health.get("memory_count", "(needs the admin key)"),
        "vectors": health.get("vector_count", "(needs the admin key)"),
    }
    console.print(key_value_table("Engram", rows))
    if jobs is None:
        return
    table = Table(title="Jobs", title_justify="left")
    for column in ("kind", "pending", "scheduled", "in flight", "done", "failed", "dead"):
        table.add_column(column, justify="left" if column == "kind" else "right")
    for kind, figures in sorted(jobs.get("jobs", {}).items()):
        table.add_row(
            kind,
            *(str(figures.get(k, 0)) for k in ("pending", "scheduled", "in_flight", "done")),
            str(figures.get("failed", 0)),
            str(figures.get("dead", 0)),
        )
    console.print(table)
