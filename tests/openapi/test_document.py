"""The OpenAPI document: served, and every field a client sees is described."""

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


async def test_operation_ids_are_short_and_stable(app_client: httpx.AsyncClient):
    spec = (await app_client.get("/openapi.json")).json()
    ids = {name: op["operationId"] for name, op in operations(spec)}
    assert len(set(ids.values())) == len(ids)
    assert {
        ids["POST /memory"], ids["GET /memory/{memory_id}"], ids["PATCH /memory/{memory_id}"],
        ids["GET /recall"], ids["POST /recall"], ids["POST /remember"],
        ids["GET /remember/jobs/{job_id}"], ids["GET /admin/dead-letters"],
    } == {
        "store_memory", "get_memory", "update_memory", "recall", "recall_post", "remember",
        "get_remember_job", "list_dead_letters",
    }  # fmt: skip
    assert all(len(op_id) <= 30 and op_id.isidentifier() for op_id in ids.values())


async def test_keys_and_errors_are_declared(app_client: httpx.AsyncClient):
    spec = (await app_client.get("/openapi.json")).json()
    schemes = spec["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {**schemes["bearerAuth"], "type": "http", "scheme": "bearer"}
    assert schemes["apiKeyAuth"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    error = {"$ref": "#/components/schemas/ErrorResponse"}
    for name, op in operations(spec):
        responses = op["responses"]
        assert "422" not in responses, name
        for status, response in responses.items():
            schema = response.get("content", {}).get("application/json", {}).get("schema")
            assert schema, f"{name} {status} has no schema"
            if status >= "400":
                assert schema == error, name
    memory = dict(operations(spec))["GET /memory/{memory_id}"]
    assert {"200", "400", "401", "403", "404", "503"} == set(memory["responses"])
    assert memory["security"] == [{"bearerAuth": []}, {"apiKeyAuth": []}]
    update = dict(operations(spec))["PATCH /memory/{memory_id}"]
    assert "409" in update["responses"]
    remember = dict(operations(spec))["POST /remember"]
    assert {"413", "429"} <= set(remember["responses"])
    health = dict(operations(spec))["GET /health"]
    assert set(health["responses"]) == {"200", "401"} and {} in health["security"]


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
