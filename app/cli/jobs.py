"""Following a server job: a Rich progress bar (done / total, rate, ETA) from the job's
progress record, until it ends. Ctrl-C stops watching, not the job: `engram job ID` watches
it again, and a job interrupted on the server resumes from its own cursor."""

import time
from typing import Any
from urllib.parse import quote

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from app.cli.errors import FAILED, CliError
from app.cli.http import EngramClient
from app.cli.output import console, errors

POLL_S = 0.5
FINAL = ("done", "dead", "aborted")


class RateColumn(ProgressColumn):
    """Items per second, from Rich's own speed estimate."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f}/s" if speed else "-/s", style="progress.data.speed")


def follow(client: EngramClient, job_id: str, label: str, *, quiet: bool) -> dict[str, Any]:
    """Polls GET /admin/jobs/{id} until the job ends; returns its last report."""
    path = f"/admin/jobs/{quote(job_id, safe='')}"
    columns = (
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    try:
        with Progress(*columns, console=console, disable=quiet, transient=True) as progress:
            task = progress.add_task(label, total=None)
            while True:
                report = client.get(path)
                _show(progress, task, report.get("progress") or {})
                if report["state"] in FINAL:
                    break
                time.sleep(POLL_S)
    except KeyboardInterrupt:
        errors.print(f"Stopped watching; job {job_id} goes on. Watch it again: engram job {job_id}")
        raise
    if report["state"] != "done":
        raise CliError(f"Job {job_id} ended {report['state']}: {report.get('error')}", FAILED)
    return report


def _show(progress: Progress, task: Any, record: dict[str, Any]) -> None:
    total, done = record.get("total"), record.get("done")
    if total is not None:
        progress.update(task, total=total)
    if done is not None:
        progress.update(task, completed=done)
