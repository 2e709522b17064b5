"""The OpenAPI document, made for generated clients: short stable operation ids, the error
envelope on every status a route can return, and the two ways to present a key.

What a route can answer is read from what it depends on (a key, an agent scope, the stores,
path parameters), plus a table of the statuses a route raises itself; FastAPI's 422, which
Engram never sends (bad input is 400), is dropped.
"""

from collections.abc import Callable, Iterator
from typing import Any, Literal

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field

from app.deps import from_runtime, get_scope, get_stores, optional_principal, require_admin

# Operation ids are the endpoint functions' names, except where a clearer name is kept here.
OPERATION_IDS = {
    "store_batch": "store_memories",
    "list_by_tag": "list_memories_by_tag",
    "delete_by_tag": "delete_memories_by_tag",
    "memory_history": "get_memory_history",
    "recall_get": "recall",
    "core": "get_core",
    "related": "get_related",
    "dissociate": "dissociate",
    "remember_job": "get_remember_job",
    "health": "get_health",
    "job_report": "get_job",
    "dead_letters": "list_dead_letters",
    "retry_dead": "retry_job",
    "sync_now": "sync",
    "reprocess": "reprocess_enrichment",
    "enrichment_status": "get_enrichment_status",
}

# Statuses a route raises itself, beyond what its dependencies imply.
RAISES: dict[str, set[int]] = {
    "update_memory": {409},
    "associate": {404},
    "dissociate": {404},
    "remember": {413, 429},
    "delete_memory": {429},  # erase=true: ERASE_RATE_PER_MINUTE
    "delete_my_memories": {429},
    "backup": {400},
    "restore": {400, 409, 413},
    "erase_any_memory": {404},
    "create_api_key": {409},  # the user holds ENGRAM_MAX_KEYS_PER_USER keys
    "import_memories": {400, 413},
    "ready": {503},
    "recover": {409},
    "download_artifact": {403, 404},  # a forged or expired link; an artifact gone since
    "save_artifact": {415},  # a content type off the allow-list
    "health": {403},  # a key bound to an agent prefix, with an X-Agent-Id outside it
}

# Statuses a route never answers although its dependencies could (health is always 200).
NEVER: dict[str, set[int]] = {"health": {503}}

# GET routes that take a POST body's fields as query parameters (lists repeated or
# comma-separated); declared from the body's schema unless the route declares its own.
QUERY_FROM_BODY = {"recall": "RecallRequest"}

DESCRIPTIONS = {
    400: "Invalid input; the message names the field.",
    401: "No API key, or an unknown one.",
    403: "The key may not do this (the admin key on user routes, a user key on admin routes, "
    "an agent outside the key's agent prefix).",
    404: "Not found in your scope.",
    409: "A conflict: the memory changed since the version given (expected_version), the "
    "Idempotency-Key was used with another request, or a limit on what is held was reached.",
    413: "The request is over a size limit (the body: ENGRAM_MAX_BODY_BYTES).",
    415: "The content type is not accepted (the message lists those that are).",
    429: "Too many requests; retry after the Retry-After header's seconds.",
    503: "A store is unavailable or a feature is switched off; retry later.",
}

ERROR_REF = "#/components/schemas/ErrorResponse"
BEARER = "bearerAuth"
API_KEY = "apiKeyAuth"
SECURITY_SCHEMES = {
    BEARER: {"type": "http", "scheme": "bearer", "description": "`Authorization: Bearer <key>`"},
    API_KEY: {"type": "apiKey", "in": "header", "name": "X-API-Key"},
}


class ErrorResponse(BaseModel):
    """Every error Engram answers with."""

    status: Literal["error"] = "error"
    code: int = Field(description="The HTTP status, repeated.")
    error: str = Field(
        description="The kind: bad_request, unauthorized, forbidden, not_found, conflict, "
        "payload_too_large, rate_limited, store_unavailable, not_replicated, unavailable, "
        "internal_error."
    )
    message: str = Field(description="What is wrong, for a person to read.")


def operation_id(route: APIRoute) -> str:
    return OPERATION_IDS.get(route.name, route.name)


def install_openapi(app: FastAPI) -> None:
    """Replaces the app's document builder with one that post-processes FastAPI's."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _finish(build(), list(api_routes(app.routes)))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def api_routes(routes: list[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # FastAPI's included routers
        if included is not None:
            yield from api_routes(included.routes)


def _finish(spec: dict[str, Any], routes: list[APIRoute]) -> dict[str, Any]:
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas["ErrorResponse"] = ErrorResponse.model_json_schema()
    _hoist_defs(spec["paths"], schemas)
    spec["components"]["securitySchemes"] = SECURITY_SCHEMES
    by_id = {operation_id(route): route for route in routes}
    for _, operation in _operations(spec):
        _name_inline_body(operation, schemas)
    _declare_query_from_bodies(spec, schemas)
    for _, operation in _operations(spec):
        route = by_id.get(operation.get("operationId", ""))
        if route is not None:
            _describe(operation, route)
    return spec


def _hoist_defs(node: Any, schemas: dict[str, Any]) -> None:
    """Bodies documented by hand (openapi_extra) carry pydantic's local `$defs`: they move to
    the shared components, where generators resolve them."""
    if isinstance(node, list):
        for item in node:
            _hoist_defs(item, schemas)
    elif isinstance(node, dict):
        for name, schema in node.pop("$defs", {}).items():
            schemas.setdefault(name, schema)
            _hoist_defs(schema, schemas)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            node["$ref"] = "#/components/schemas/" + ref.removeprefix("#/$defs/")
        for value in node.values():
            _hoist_defs(value, schemas)


def _declare_query_from_bodies(spec: dict[str, Any], schemas: dict[str, Any]) -> None:
    for _, operation in _operations(spec):
        body = schemas.get(QUERY_FROM_BODY.get(operation.get("operationId", ""), ""))
        if body is None:
            continue
        declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        if declared:
            continue
        parameters = [
            _query_parameter(name, field) for name, field in body.get("properties", {}).items()
        ]
        operation["parameters"] = [*filter(None, parameters), *operation.get("parameters", [])]


def _query_parameter(name: str, field: dict[str, Any]) -> dict[str, Any] | None:
    """One body field as a query parameter: scalars as they are, lists repeated, objects as
    key=value pairs, a vector as one comma-separated string."""
    options = [o for o in field.get("anyOf", [field]) if o.get("type") != "null"]
    kind = options[0] if len(options) == 1 else {}
    description = field.get("description", "")
    if kind.get("type") == "object":
        schema: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
        description += " As key=value pairs."
    elif kind.get("type") == "array" and kind.get("items", {}).get("type") != "string":
        schema = {"type": "string"}
        description += " Comma-separated."
    elif kind.get("type") in ("string", "integer", "number", "boolean", "array"):
        schema = {key: kind[key] for key in ("type", "items") if key in kind}
        if "default" in field:
            schema["default"] = field["default"]
    else:
        return None
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


def _operations(spec: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, methods in spec["paths"].items():
        for operation in methods.values():
            yield path, operation


def _name_inline_body(operation: dict[str, Any], schemas: dict[str, Any]) -> None:
    """A hand-documented body becomes a named component (`RecallRequest`, not a name made of
    the operation's)."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    schema, title = content.get("schema", {}), content.get("schema", {}).get("title")
    if title and "$ref" not in schema and schemas.get(title, schema) == schema:
        schemas[title] = schema
        content["schema"] = {"$ref": f"#/components/schemas/{title}"}


def _describe(operation: dict[str, Any], route: APIRoute) -> None:
    calls = set(_calls(route.dependant))
    responses = operation.setdefault("responses", {})
    responses.pop("422", None)
    for response in responses.values():
        for media_type, content in response.get("content", {}).items():
            if not media_type.endswith("json") and not content.get("schema"):
                content["schema"] = {"type": "string", "format": "binary"}
    security = _security(calls)
    if security:
        operation["security"] = security
    for status in sorted(_statuses(route, calls)):
        responses[str(status)] = {
            "description": DESCRIPTIONS[status],
            "content": {"application/json": {"schema": {"$ref": ERROR_REF}}},
        }


def _security(calls: set[Callable[..., Any]]) -> list[dict[str, list[str]]]:
    if optional_principal not in calls:
        return []
    schemes: list[dict[str, list[str]]] = [{BEARER: []}, {API_KEY: []}]
    if get_scope in calls or require_admin in calls:
        return schemes
    return [{}, *schemes]  # the key is optional (it adds detail)


def _statuses(route: APIRoute, calls: set[Callable[..., Any]]) -> set[int]:
    statuses = set(RAISES.get(route.name, ()))
    if optional_principal in calls:
        statuses.add(401)
    if get_scope in calls or require_admin in calls:
        statuses.add(403)
    dependant = route.dependant
    # Every route's path, query, headers and body pass the app-wide text guard
    # (app/http_guard.reject_bad_text): a NUL in any header is a 400 on any route.
    statuses.add(400)
    if dependant.body_params or route.openapi_extra and "requestBody" in route.openapi_extra:
        statuses.add(413)  # the body size limit
    if any(p.alias == "Idempotency-Key" for p in dependant.header_params):
        statuses.add(409)
    if dependant.path_params or _nested_path_params(dependant):
        statuses.update({400, 404})
    if get_stores in calls or any(from_runtime(call) for call in calls):
        statuses.add(503)
    return statuses - NEVER.get(route.name, set())


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for sub in dependant.dependencies:
        if sub.call is not None:
            yield sub.call
        yield from _calls(sub)


def _has_input(dependant: Dependant) -> bool:
    if dependant.body_params or dependant.query_params or dependant.path_params:
        return True
    return any(_has_input(sub) for sub in dependant.dependencies)


def _nested_path_params(dependant: Dependant) -> bool:
    return any(sub.path_params or _nested_path_params(sub) for sub in dependant.dependencies)
