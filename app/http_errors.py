"""The one place errors become HTTP responses: `{status: "error", code, error, message}`.

`code` is the HTTP status as a number (AutoMem's envelope); `error` names the kind. Bad input is
400 with the offending field named, never 422. Exceptions no handler takes are answered by
`app.http_guard.AnswerErrors`: 503 `store_unavailable` for a store outage, else a plain 500 whose
details go to the log, never to the client.
"""

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.errors import AppError, RateLimited, StoreUnavailable
from app.http_guard import STORE_RETRY_AFTER_S
from app.storage.outage import COUNTS

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def error_response(status: int, kind: str, message: str) -> JSONResponse:
    body = {"status": "error", "code": status, "error": kind, "message": message}
    return JSONResponse(body, status_code=status)


def describe_validation_error(error: dict[str, Any]) -> str:
    """One pydantic error as a sentence naming the field."""
    loc = list(error.get("loc", ()))
    if loc and loc[0] in ("body", "query", "path", "header"):  # where, not which field
        loc = loc[1:]
    message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
    kind = error.get("type", "")
    if kind == "json_invalid":
        return "Request body is not valid JSON"
    if not loc:
        if kind == "missing":
            return "JSON body is required"
        return (
            f"Request body {message[0].lower()}{message[1:]}" if message else "Invalid request body"
        )
    prefix = ""
    if len(loc) >= 2 and loc[0] == "memories" and isinstance(loc[1], int):
        prefix, loc = f"Memory at index {loc[1]}: ", loc[2:]
    if not loc:
        return f"{prefix}must be an object"
    field = ".".join(str(part) for part in loc)
    if kind == "missing":
        return f"{prefix}'{field}' is required"
    if kind == "extra_forbidden":
        return f"{prefix}'{field}' is not a field that can be set here"
    if kind == "model_attributes_type" or kind == "dict_type":
        return f"{prefix}Invalid '{field}': must be an object"
    return f"{prefix}Invalid '{field}': {message}"


def unsent_json(request: Request, errors: Sequence[Any]) -> str | None:
    """Why a JSON body was not read: a request without `Content-Type: application/json` has its
    body taken as bytes, which pydantic's own message ("Input should be a valid dictionary…")
    does not explain."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type == "application/json" or media_type.endswith("+json"):
        return None
    whole_body = any(tuple(error.get("loc", ())) == ("body",) for error in errors)
    if not whole_body:
        return None
    sent = f"Content-Type: {media_type}" if media_type else "no Content-Type"
    return (
        f"The body must be JSON sent with 'Content-Type: application/json' (this request has "
        f"{sent})"
    )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def app_error(_: Request, exc: AppError) -> JSONResponse:
        response = error_response(exc.status_code, exc.code, exc.message)
        if isinstance(exc, RateLimited):
            response.headers["Retry-After"] = str(exc.retry_after_s)
        elif isinstance(exc, StoreUnavailable):
            response.headers["Retry-After"] = str(STORE_RETRY_AFTER_S)
            COUNTS.refused_requests += 1
        return response

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if (message := unsent_json(request, errors)) is not None:
            return error_response(400, "bad_request", message)
        message = describe_validation_error(errors[0]) if errors else "Invalid request"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more problem(s))"
        return error_response(400, "bad_request", message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kinds = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}
        response = error_response(
            exc.status_code, kinds.get(exc.status_code, "http_error"), _said(request, exc)
        )
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:
            response.headers["Allow"] = ", ".join(routed_methods(request))
        return response


def routed_methods(request: Request) -> list[str]:
    """Every method some route takes at the request's path. Starlette's 405 names only the
    methods of the first route there (`/memory/{id}`: GET, though PATCH and DELETE are routed
    too, each by a route of its own)."""
    found = []
    for method in METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in request.app.router.routes):
            found.append(method)
    return found


def _said(request: Request, exc: StarletteHTTPException) -> str:
    """The exception's detail; for no route at a path that ends with a slash, why."""
    path = request.url.path
    unrouted = exc.status_code == 404 and exc.detail == "Not Found"
    if unrouted and len(path) > 1 and path.endswith("/"):
        return f"No route at {path[:200]}: Engram's paths end without a slash"
    return str(exc.detail)
