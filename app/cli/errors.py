"""Exit codes and the one exception commands raise to end with one."""

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.markup import escape

from app.cli.output import errors

P = ParamSpec("P")
R = TypeVar("R")

OK = 0
FAILED = 1
USAGE = 2
UNREACHABLE = 3
AUTH_REFUSED = 4


class CliError(Exception):
    """Ends the command with a message on stderr and an exit code."""

    def __init__(self, message: str, exit_code: int = FAILED) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


def exits_on_error(command: Callable[P, R]) -> Callable[P, R]:
    """Wraps a command so a CliError prints its message and exits with its code."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except CliError as exc:
            errors.print(f"[red]error:[/red] {escape(exc.message)}", highlight=False)
            raise typer.Exit(exc.exit_code) from None

    return run
