"""How an MCP tool reaches Engram: through the API's own routes, in-process, with the caller's
credentials. Every check, limit, scope and error of the HTTP API then holds for MCP as it is.

Over HTTP the key comes with every request (`Authorization: Bearer` or `X-API-Key`) and the
agent from `X-Agent-Id`, and they are passed on. Over stdio the process serves one caller,
whose key and agent are fixed at start.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import MCPServerError, ToolError

from app.logs import REQUEST_ID

PASSED_ON = ("authorization", "x-api-key", "x-agent-id")
BASE_URL = "http://engram"


@dataclass(frozen=True, slots=True)
class Caller:
    """The API (in-process) and the headers that say who is calling."""

    api: httpx.AsyncClient
    headers: dict[str, str]

    async def call(
        self, method: str, path: str, *, kind: type[MCPServerError] = ToolError, **options: Any
    ) -> Any:
        """The JSON answer of one API request; an error answer becomes `kind` with its code and
        message (`not_found: Memory … not found`)."""
        headers = dict(self.headers)
        if (request_id := REQUEST_ID.get()) is not None:
            headers["x-request-id"] = request_id
        answer = await self.api.request(method, path, headers=headers, **options)
        body = answer.json() if answer.content else None
        if answer.is_success:
            return body
        if isinstance(body, dict) and "message" in body:
            raise kind(f"{body.get('error', answer.status_code)}: {body['message']}")
        raise kind(f"HTTP {answer.status_code}")


CallerResolver = Callable[[Context[Any, Any]], Caller]


def in_process(app: Any) -> httpx.AsyncClient:
    """A client that calls the ASGI app directly (no socket)."""
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url=BASE_URL, timeout=None)


def header_caller(api: httpx.AsyncClient) -> CallerResolver:
    """Each tool call acts with the headers of the HTTP request that carried it."""

    def resolve(ctx: Context[Any, Any]) -> Caller:
        given: Mapping[str, str] = ctx.headers or {}
        headers = {name.lower(): value for name, value in given.items()}
        return Caller(api, {name: headers[name] for name in PASSED_ON if name in headers})

    return resolve


def key_headers(key: str, agent: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"} | ({"x-agent-id": agent} if agent else {})


def fixed_caller(caller: Caller) -> CallerResolver:
    """One caller for the whole process (stdio)."""
    return lambda _ctx: caller


def refusing_caller(reason: str) -> CallerResolver:
    """No caller at all: every tool call fails with the reason. A stdio server whose key does
    not work serves like this, since a process that exits shows an MCP client only "Connection
    closed", while a failed tool call shows the reason to the user and the model."""

    def refuse(_ctx: Context[Any, Any]) -> Caller:
        raise ToolError(reason)

    return refuse


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The API key of a request's headers (Bearer first, then X-API-Key)."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return headers.get("x-api-key") or None
