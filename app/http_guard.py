"""The HTTP layer's two guards: no bad text past the door, and no failure without an answer.

`reject_bad_text` runs before every route (an app-wide dependency): a NUL, a lone surrogate or a
non-finite number in the path, the query, a header or the JSON body is a 400 naming where it is,
so no store ever sees one, whichever domain the route belongs to.

`LimitBody` refuses a body over the configured size (413 in the error envelope; Starlette's own
limit answers in plain text) before it is read whole.

`AnswerErrors` sits outside the routes: an exception no handler took becomes an answer (503
`store_unavailable` with Retry-After when a store could not be reached, else 500) instead of
escaping to the server, which would log it a second time and close the client's keep-alive
connection without a reply.
"""

import json
import logging
from typing import Any

from fastapi import Request
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import BadRequest
from app.storage.outage import COUNTS, is_store_failure
from app.validation import find_bad_text, may_hold_bad_text, text_problem

log = logging.getLogger(__name__)

STORE_RETRY_AFTER_S = 5


async def reject_bad_text(request: Request) -> None:
    """400 if any client string of the request holds a NUL or a lone surrogate."""
    for name, value in request.path_params.items():
        _check(f"path parameter '{name}'", value)
    for name, value in request.query_params.multi_items():
        _check(f"query parameter name {name!r}", name)
        _check(f"query parameter '{name}'", value)
    for name, value in request.headers.items():
        _check(f"header '{name}'", value)
    if not _is_json(request.headers.get("content-type", "")):
        return  # other bodies are streamed by their routes (archives), never parsed as text
    body = await request.body()
    if body and may_hold_bad_text(body):
        try:
            parsed = json.loads(body)
        except (ValueError, RecursionError):
            return  # not JSON: the route's own parsing answers
        found = find_bad_text(parsed)
        if found:
            where, problem = found
            raise BadRequest(f"Invalid '{where}': {problem}")


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _check(where: str, value: Any) -> None:
    if isinstance(value, str) and (problem := text_problem(value)):
        raise BadRequest(f"Invalid {where}: {problem}")


def error_body(status: int, kind: str, message: str) -> bytes:
    body = {"status": "error", "code": status, "error": kind, "message": message}
    return json.dumps(body).encode()


class AnswerErrors:
    """ASGI middleware: answers for any exception that escaped the routes' handlers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if started:
                raise  # a reply is half sent: only closing the connection can end it
            await send_failure(scope, send, exc)


async def send_failure(scope: Scope, send: Send, exc: Exception) -> None:
    """The reply to an unhandled exception; logged with its traceback, except store outages
    (counted: the store watch logs the outage once)."""
    method, path = scope.get("method", ""), scope.get("path", "")
    headers = [(b"content-type", b"application/json")]
    if is_store_failure(exc):  # logged once for the whole outage (app/ops/store_watch.py)
        COUNTS.refused_requests += 1
        status = 503
        body = error_body(status, "store_unavailable", "A store is unavailable; retry shortly")
        headers.append((b"retry-after", str(STORE_RETRY_AFTER_S).encode()))
    else:
        log.error("unhandled error on %s %s", method, path, exc_info=exc)
        status = 500
        body = error_body(status, "internal_error", "Internal server error")
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class LimitBody:
    """ASGI middleware: 413 for a request body over `max_bytes`, declared or streamed."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, streamed: frozenset[str] = frozenset()
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.streamed = streamed  # paths whose routes stream the body to disk, with own limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.streamed:
            await self.app(scope, receive, send)
            return
        message = f"The request body must be at most {self.max_bytes} bytes"
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            body = error_body(413, "payload_too_large", message)
            headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": 413, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            got = await receive()
            if got["type"] == "http.request":
                received += len(got.get("body", b""))
                if received > self.max_bytes:
                    raise HTTPException(413, message)
            return got

        await self.app(scope, counting_receive, send)
