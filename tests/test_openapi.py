"""The OpenAPI document: served, and every field a client sees is described."""

import httpx


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
    properties = body["schema"]["properties"]
    assert {"query", "limit", "tags", "state_mode", "expand_entities"} <= set(properties)
    assert all(field.get("description") for field in properties.values())
