"""Every HTTP request: its id (X-Request-Id in and out), its metrics and its access-log line."""

import logging
import re
import time
import uuid
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.logs import REQUEST_ID
from app.metrics import HTTP_LATENCY, HTTP_REQUESTS

access = logging.getLogger("engram.access")

# A caller's id is kept when it is short and plain; anything else is replaced by a fresh one.
VALID_ID = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
UNMATCHED = "unmatched"  # one label for every path no route knows (bounded cardinality)


def request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            given = value.decode("latin-1")
            if VALID_ID.match(given):
                return given
    return uuid.uuid4().hex


def route_label(scope: Scope) -> str:
    route: Any = scope.get("route")
    return getattr(route, "path", None) or UNMATCHED


class ObserveRequests:
    """Pure ASGI middleware (no body buffering, so streamed answers stream)."""

    def __init__(self, app: ASGIApp, *, access_log: bool = True) -> None:
        self.app, self.access_log = app, access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id(scope)
        token = REQUEST_ID.set(rid)
        started = time.perf_counter()
        status = 500  # what the client gets if the app raises before answering

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [h for h in message.get("headers", []) if h[0] != b"x-request-id"]
                message = {**message, "headers": [*headers, (b"x-request-id", rid.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            self._record(scope, status, time.perf_counter() - started)
            REQUEST_ID.reset(token)

    def _record(self, scope: Scope, status: int, seconds: float) -> None:
        route, method = route_label(scope), scope["method"]
        HTTP_REQUESTS.labels(route, method, str(status)).inc()
        HTTP_LATENCY.labels(route, method).observe(seconds)
        if self.access_log:
            client = scope.get("client")
            access.info(
                "%s %s %d %.1fms",
                method,
                scope["path"],
                status,
                seconds * 1000,
                extra={
                    "method": method,
                    "path": scope["path"],
                    "route": route,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 2),
                    "client": client[0] if client else None,
                },
            )
