"""/mcp on the API's own process: MCP's streamable HTTP transport, behind Engram's API keys."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.errors import Unauthorized
from app.http_errors import describe_validation_error, error_response
from app.mcp.caller import CallerResolver, header_caller, in_process, presented_key
from app.mcp.oauth import mount_metadata, protected_resource
from app.mcp.tools import register

PATH = "/mcp"
KEY_REQUIRED = "An API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'"
VERSION = "0.1.0"  # the API's (FastAPI app) version
INSTRUCTIONS = (
    "Engram is your long-term memory. At the start of a task call `context` with what the task "
    "is about; call `recall` when you need something you may have been told before; after an "
    "exchange worth keeping, call `remember` with its turns (or `store` for one exact fact)."
)


class EngramMCPServer(MCPServer):
    """The MCP server, with arguments that fail the tools' schemas answered as the REST API
    answers bad input (`bad_request: Invalid 'limit': …`), not in pydantic's own wording."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            problems = exc.__cause__.errors()
            first = problems[0]  # located as a body field, as the REST API reads its errors
            message = describe_validation_error({**first, "loc": ("body", *first["loc"])})
            if len(problems) > 1:
                message += f" (and {len(problems) - 1} more problem(s))"
            raise ToolError(f"bad_request: {message}") from exc.__cause__


def build_server(caller: CallerResolver) -> MCPServer:
    server = EngramMCPServer("engram", title="Engram", instructions=INSTRUCTIONS, version=VERSION)
    register(server, caller)
    return server


class KeyRequired:
    """Refuses an MCP request without a valid API key (401, Engram's error envelope) before the
    transport sees it; each tool call then resolves its own scope from the same headers."""

    def __init__(self, app: FastAPI, inner: ASGIApp, challenge: str = "Bearer") -> None:
        self.app, self.inner, self.challenge = app, inner, challenge

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            key = presented_key({k.lower(): v for k, v in Headers(scope=scope).items()})
            refused = None
            if key is None:
                refused = Unauthorized(KEY_REQUIRED)
            elif await self.app.state.authenticator.authenticate(key) is None:
                refused = Unauthorized("Invalid API key")
            if refused is not None:
                response = error_response(refused.status_code, refused.code, refused.message)
                response.headers["WWW-Authenticate"] = self.challenge
                await response(scope, receive, send)
                return
        await self.inner(scope, receive, send)


class LabelledRoute(Route):
    """A Starlette route that names itself in the scope, as FastAPI's own routes do (FastAPI's
    router leaves `scope["route"]` unset for other routes), so that metrics and the access log
    label its requests with its path, not `unmatched`."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["route"] = self
        await super().handle(scope, receive, send)


def mount_mcp(app: FastAPI, settings: Settings) -> MCPServer:
    """Adds /mcp to the app. Stateless with JSON answers: any API replica can serve any request
    (no session to keep on one process). Every request carries an API key in a header, which a
    rebinding page cannot send, so the transport's Host/Origin check is left off: it would refuse
    the names a deployment is reached by. With an OAuth authorization server configured, its
    metadata is served and a refusal says where it is."""
    server = build_server(header_caller(in_process(app)))
    resource = protected_resource(settings)
    if resource is not None:
        mount_metadata(app, resource)
    challenge = resource.challenge if resource is not None else "Bearer"
    transport = server.streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    for route in transport.routes:
        if isinstance(route, Route) and route.path == PATH:
            guarded = KeyRequired(app, route.endpoint, challenge)
            app.router.routes.append(
                LabelledRoute(
                    PATH, guarded, methods=route.methods, name="mcp", include_in_schema=False
                )
            )
    return server


@asynccontextmanager
async def session_manager(server: MCPServer) -> AsyncIterator[None]:
    """Runs the transport's task group for the app's lifetime, in a task of its own: its cancel
    scope must close in the task that opened it, and an app's lifespan may be entered and left by
    different tasks (a test fixture's set-up and tear-down)."""
    started, stop = asyncio.Event(), asyncio.Event()

    async def run() -> None:
        async with server.session_manager.run():
            started.set()
            await stop.wait()

    task = asyncio.create_task(run(), name="mcp-transport")
    waiting = asyncio.create_task(started.wait())
    await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        waiting.cancel()
        task.result()  # raises why the transport could not start
    try:
        yield
    finally:
        stop.set()
        await task
