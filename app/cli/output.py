"""Output: Rich tables for people, one JSON document for machines (`--json`)."""

import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

console = Console()
errors = Console(stderr=True, soft_wrap=True)


def emit_json(document: Any) -> None:
    sys.stdout.write(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n")


def key_value_table(title: str, rows: dict[str, Any]) -> Table:
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows.items():
        table.add_row(key, "" if value is None else str(value))
    return table
