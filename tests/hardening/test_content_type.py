"""A JSON endpoint called without `Content-Type: application/json` answers in Engram's envelope,
saying which header to send (FastAPI's own answer is a raw pydantic message)."""

import httpx
import pytest

from tests.conftest import ALICE_KEY, auth

BODY = b'{"content": "Alice drinks oolong tea"}'


@pytest.mark.parametrize(
    "headers",
    [{}, {"content-type": "text/plain"}, {"content-type": "application/x-www-form-urlencoded"}],
    ids=["none", "text", "form"],
)
async def test_a_json_body_without_its_content_type_names_the_header(
    app_client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    answer = await app_client.post("/memory", content=BODY, headers={**auth(ALICE_KEY), **headers})
    assert answer.status_code == 400
    body = answer.json()
    assert body["status"] == "error" and body["error"] == "bad_request"
    assert "Content-Type: application/json" in body["message"]


async def test_a_json_content_type_with_parameters_is_taken(app_client: httpx.AsyncClient) -> None:
    headers = {**auth(ALICE_KEY), "content-type": "application/json; charset=utf-8"}
    answer = await app_client.post("/memory", content=BODY, headers=headers)
    assert answer.status_code == 201, answer.text
