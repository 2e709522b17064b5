"""Who is calling an MCP tool: the runtime, the key's principal and the resolved agent scope.

Over HTTP the key comes with every request (`Authorization: Bearer` or `X-API-Key`) and the agent
from `X-Agent-Id`, exactly as for the REST routes. Over stdio the process is started for one
caller: its key and agent are fixed at start.
"""

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import MCPServerError, ToolError
from pydantic import ValidationError

from app.auth import KeyRing, Principal, resolve_scope
from app.errors import AppError, Unauthorized
from app.http_errors import describe_validation_error
from app.runtime import Runtime
from app.scope import Scope

KEY_REQUIRED = "An API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'"


@dataclass(frozen=True, slots=True)
class Caller:
    runtime: Runtime
    principal: Principal
    scope: Scope


CallerResolver = Callable[[Context[Any, Any]], Caller]


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The API key of a request's headers (Bearer first, then X-API-Key)."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return headers.get("x-api-key") or None


def authenticate(keyring: KeyRing, headers: Mapping[str, str]) -> Principal:
    key = presented_key(headers)
    if key is None:
        raise Unauthorized(KEY_REQUIRED)
    principal = keyring.authenticate(key)
    if principal is None:
        raise Unauthorized("Invalid API key")
    return principal


def http_caller(runtime: Callable[[], Runtime]) -> CallerResolver:
    """Each tool call is authenticated from the headers of the HTTP request that carried it."""

    def resolve(ctx: Context[Any, Any]) -> Caller:
        current = runtime()
        headers = {name.lower(): value for name, value in (ctx.headers or {}).items()}
        assert current.keyring is not None  # the HTTP app always has one
        principal = authenticate(current.keyring, headers)
        return Caller(current, principal, resolve_scope(principal, headers.get("x-agent-id")))

    return resolve


def fixed_caller(runtime: Runtime, principal: Principal, agent: str | None) -> CallerResolver:
    """One caller for the whole process (stdio)."""
    scope = resolve_scope(principal, agent)
    caller = Caller(runtime, principal, scope)
    return lambda _ctx: caller


@contextmanager
def reported(kind: type[MCPServerError] = ToolError) -> Iterator[None]:
    """Engram's errors reach the client as tool (or resource) errors naming what is wrong: the
    SDK hides the text of any other exception."""
    try:
        yield
    except AppError as exc:
        raise kind(f"{exc.code}: {exc.message}") from exc
    except ValidationError as exc:
        errors = exc.errors()
        message = describe_validation_error(dict(errors[0])) if errors else "Invalid arguments"
        raise kind(f"bad_request: {message}") from exc
