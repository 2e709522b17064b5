"""The OpenAPI document: served, and every field a client sees is described."""

import json

import httpx


def resolve(spec: dict, schema: dict) -> dict:
    ref = schema.get("$ref")
    return spec["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else schema


def operations(spec: dict):
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            yield f"{method.upper()} {path}", operation


def undescribed_fields(spec: dict) -> list[str]:
    missing = []
    for name, schema in spec["components"]["schemas"].items():
        if name in ("HTTPValidationError", "ValidationError"):
            continue
        for field, prop in schema.get("properties", {}).items():
            if field == "status" or "$ref" in prop:
                continue
            if not prop.get("description"):
                missing.append(f"{name}.{field}")
    return missing


async def test_openapi_is_served_and_every_field_is_described(app_client: httpx.AsyncClient):
    spec = (await app_client.get("/openapi.json")).json()
    paths = set(spec["paths"])
    assert {"/memory", "/memory/batch", "/memory/{memory_id}", "/memory/by-tag", "/health"} <= paths
    assert "/memory/{memory_id}/history" in paths
    assert undescribed_fields(spec) == []
    assert (await app_client.get("/docs")).status_code == 200


async def test_post_recall_documents_its_body(app_client: httpx.AsyncClient):
    spec = (await app_client.get("/openapi.json")).json()
    body = spec["paths"]["/recall"]["post"]["requestBody"]["content"]["application/json"]
    properties = resolve(spec, body["schema"])["properties"]
    assert {"query", "limit", "tags", "state_mode", "expand_entities"} <= set(properties)
    assert all(field.get("description") for field in properties.values())


TYPED = {
    "POST /memory": "store_memory",
    "GET /memory/{memory_id}": "get_memory",
    "PATCH /memory/{memory_id}": "update_memory",
    "DELETE /memory/{memory_id}": "delete_memory",
    "GET /recall": "recall",
    "POST /recall": "recall_post",
    "POST /recall/context": "recall_context",
    "GET /core": "get_core",
    "POST /associate": "associate",
    "GET /memories/{memory_id}/related": "get_related",
    "POST /remember": "remember",
    "GET /remember/jobs/{job_id}": "get_remember_job",
    "GET /admin/jobs/{job_id}": "get_job",
    "GET /admin/dead-letters": "list_dead_letters",
    "GET /health": "get_health",
}


async def test_operation_ids_are_short_and_stable(app_client: httpx.AsyncClient):
    spec = (await app_client.get("/openapi.json")).json()
    ids = {name: op["operationId"] for name, op in operations(spec)}
    assert {name: ids[name] for name in TYPED} == TYPED


async def test_answers_are_typed_and_errors_use_the_envelope(app_client: httpx.AsyncClient):
    spec = (await app_client.get("/openapi.json")).json()
    error = {"$ref": "#/components/schemas/ErrorResponse"}
    every = dict(operations(spec))
    for name in TYPED:
        responses = every[name]["responses"]
        assert "422" not in responses, name
        for status, response in responses.items():
            schema = response["content"]["application/json"]["schema"]
            if status >= "400":
                assert schema == error, name
            else:
                assert "$ref" in schema or "anyOf" in schema, f"{name} {status}: untyped"
    assert "422" not in json.dumps(spec["paths"])
    recall_item = spec["components"]["schemas"]["RecallItem"]["properties"]["memory"]
    assert recall_item == {**recall_item, "$ref": "#/components/schemas/MemoryOut"}


async def test_keys_and_errors_are_declared(app_client: httpx.AsyncClient):
    spec = (await app_client.get("/openapi.json")).json()
    schemes = spec["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {**schemes["bearerAuth"], "type": "http", "scheme": "bearer"}
    assert schemes["apiKeyAuth"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    every = dict(operations(spec))
    memory = every["GET /memory/{memory_id}"]
    assert {"200", "400", "401", "403", "404", "503"} == set(memory["responses"])
    assert memory["security"] == [{"bearerAuth": []}, {"apiKeyAuth": []}]
    assert "409" in every["PATCH /memory/{memory_id}"]["responses"]
    assert {"413", "429"} <= set(every["POST /remember"]["responses"])
    health = every["GET /health"]
    # 400: every route's headers pass the text guard (app/http_guard.py).
    assert set(health["responses"]) == {"200", "400", "401", "403"} and {} in health["security"]
    for keyed in ("POST /memory", "POST /memory/batch", "POST /associate", "POST /remember"):
        assert {"409", "413"} <= set(every[keyed]["responses"]), keyed  # Idempotency-Key, size


async def test_get_recall_declares_every_parameter_of_the_body(app_client: httpx.AsyncClient):
    spec = (await app_client.get("/openapi.json")).json()
    get = dict(operations(spec))["GET /recall"]
    declared = {p["name"] for p in get["parameters"] if p["in"] == "query"}
    body = spec["components"]["schemas"]["RecallRequest"]["properties"]
    assert set(body) <= declared
    assert all(p.get("description") for p in get["parameters"])


async def test_declared_statuses_are_what_the_service_answers(app_client: httpx.AsyncClient):
    """A sample of routes driven into each error they declare."""
    missing = "/memory/00000000-0000-4000-8000-000000000000"
    cases = [
        ("GET", missing, {}, 401),
        ("GET", missing, {"Authorization": "Bearer admin-key-0123456789abcdef"}, 403),
        ("GET", missing, {"X-API-Key": "alice-key-0123456789abcdef"}, 404),
        ("GET", "/memory/nope", {"X-API-Key": "alice-key-0123456789abcdef"}, 400),
        ("GET", "/admin/dead-letters", {"X-API-Key": "alice-key-0123456789abcdef"}, 403),
    ]
    spec = (await app_client.get("/openapi.json")).json()
    for method, path, headers, status in cases:
        answered = await app_client.request(method, path, headers=headers)
        assert answered.status_code == status, (path, answered.text)
        assert set(answered.json()) == {"status", "code", "error", "message"}
        template = "/memory/{memory_id}" if path.startswith("/memory/") else path
        assert str(status) in spec["paths"][template][method.lower()]["responses"]
