"""`engram keys add | list | revoke`: users' API keys made at runtime (/admin/keys)."""

from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.table import Table

from app.cli.context import options
from app.cli.errors import exits_on_error
from app.cli.output import console, emit_json, key_value_table

keys = typer.Typer(
    help="Make, list and revoke users' API keys (the admin key stays in ENGRAM_ADMIN_KEY).",
    no_args_is_help=True,
)
PAGE = 500
COLUMNS = ("key_id", "user_id", "agent_prefix", "label", "created_at", "revoked_at")


def add(
    ctx: typer.Context,
    user: Annotated[str, typer.Option(help="The user the key acts for.")],
    agent_prefix: Annotated[
        str | None, typer.Option(help="Limit the key to this agent and its sub-agents.")
    ] = None,
    label: Annotated[str | None, typer.Option(help="A note: who or what holds the key.")] = None,
) -> None:
    """Make a key for a user. The key is printed once: Engram keeps only its digest."""
    body = {"user_id": user, "agent_prefix": agent_prefix, "label": label}
    made = options(ctx).client().post("/admin/keys", json=body)
    if options(ctx).as_json:
        emit_json(made)
        return
    console.print(key_value_table("API key", {**_row(made), "api_key": made["api_key"]}))
    console.print("Store the key now: it is not shown again.")


def list_(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option(help="Only this user's keys.")] = None,
    revoked: Annotated[bool, typer.Option("--revoked", help="Also the revoked keys.")] = False,
) -> None:
    """The keys made at runtime (not those of ENGRAM_API_KEYS), oldest first."""
    client = options(ctx).client()
    params: dict[str, Any] = {"limit": PAGE, "include_revoked": revoked}
    if user is not None:
        params["user_id"] = user
    found: list[dict[str, Any]] = []
    while True:
        page = client.get("/admin/keys", params=params)
        found += page["keys"]
        if page["next_cursor"] is None:
            break
        params["cursor"] = page["next_cursor"]
    if options(ctx).as_json:
        emit_json({"keys": found})
        return
    table = Table(title=f"API keys ({len(found)})", title_justify="left")
    for column in COLUMNS:
        table.add_column(column, no_wrap=column == "key_id")
    for key in found:
        table.add_row(*(str(key.get(column) or "") for column in COLUMNS))
    console.print(table)


def revoke(
    ctx: typer.Context, key_id: Annotated[str, typer.Argument(help="The key's id.")]
) -> None:
    """Revoke a key: refused at once, by every process within ENGRAM_KEYS_REFRESH_S."""
    revoked = options(ctx).client().delete(f"/admin/keys/{quote(key_id, safe='')}")
    if options(ctx).as_json:
        emit_json(revoked)
    else:
        console.print(key_value_table("Revoked", _row(revoked)))


def _row(key: dict[str, Any]) -> dict[str, Any]:
    return {column: key.get(column) for column in COLUMNS}


keys.command("add")(exits_on_error(add))
keys.command("list")(exits_on_error(list_))
keys.command("revoke")(exits_on_error(revoke))
