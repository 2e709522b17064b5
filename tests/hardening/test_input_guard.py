"""Issue rows 1, 2, 8, 9: bad text and oversized values are a 400 naming where they are, before
any store sees them; contract details (Allow on 405, the `enrichment` field, page bounds)."""

import json
import math

import httpx
import pytest

from app.validation import MAX_METADATA_BYTES, find_bad_text, may_hold_bad_text
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, running_client, test_settings

H = auth(ALICE_KEY)
NUL = "a\x00b"
SURROGATE = "a\ud800b"


async def memory_count(client: httpx.AsyncClient) -> int:
    return (await client.get("/health", headers=H)).json()["memory_count"]


def raw_json(body: object) -> bytes:
    """JSON as a client would send it (json.dumps escapes NUL and lone surrogates as \\u…)."""
    return json.dumps(body).encode()


BAD_BODIES = [
    ("/memory", {"content": NUL}, "'content'", "NUL"),
    ("/memory", {"content": SURROGATE}, "'content'", "surrogate"),
    ("/memory", {"content": "ok", "tags": ["fine", NUL]}, "'tags[1]'", "NUL"),
    ("/memory", {"content": "ok", "tags": SURROGATE}, "'tags'", "surrogate"),
    ("/memory", {"content": "ok", "metadata": {"note": NUL}}, "'metadata.note'", "NUL"),
    ("/memory", {"content": "ok", "metadata": {NUL: 1}}, "metadata key", "NUL"),
    ("/memory", {"content": "ok", "labels": {"k": [SURROGATE]}}, "'labels.k[0]'", "surrogate"),
    ("/memory", {"content": "ok", "source": {"chat_id": NUL}}, "'source.chat_id'", "NUL"),
    ("/memory", {"content": "ok", "categories": [NUL]}, "'categories[0]'", "NUL"),
    (
        "/memory/batch",
        {"memories": [{"content": "ok"}, {"content": NUL}]},
        "'memories[1].content'",
        "NUL",
    ),
    (
        "/memory/batch",
        {"memories": [{"content": "ok", "tags": [SURROGATE]}]},
        "'memories[0].tags[0]'",
        "surrogate",
    ),
    ("/recall", {"query": NUL}, "'query'", "NUL"),
    ("/remember", {"content": SURROGATE}, "'content'", "surrogate"),
    (
        "/associate",
        {"memory1_id": NUL, "memory2_id": "x", "type": "RELATES_TO"},
        "'memory1_id'",
        "NUL",
    ),
]


@pytest.mark.parametrize(("path", "body", "where", "what"), BAD_BODIES)
async def test_bad_text_in_a_body_is_400_naming_the_field_and_writes_nothing(
    app_client: httpx.AsyncClient, path: str, body: dict, where: str, what: str
):
    before = await memory_count(app_client)
    headers = {**H, "content-type": "application/json"}
    response = await app_client.post(path, content=raw_json(body), headers=headers)
    assert response.status_code == 400, response.text
    envelope = response.json()
    assert envelope["status"] == "error" and envelope["error"] == "bad_request"
    assert where in envelope["message"] and what in envelope["message"]
    assert await memory_count(app_client) == before


BAD_URLS = [
    ("GET", "/memory/by-tag?tags=a%00b", "query parameter 'tags'"),
    ("DELETE", "/memory/by-tag?tags=a%00b", "query parameter 'tags'"),
    ("GET", "/entity/a%00b", "path parameter 'slug'"),
    ("GET", "/recall?query=a%00b", "query parameter 'query'"),
    ("GET", "/recall?a%00b=1", "query parameter name"),
    ("GET", "/memory/a%00b", "path parameter 'memory_id'"),
    ("GET", "/entities?category=a%00b", "query parameter 'category'"),
]


@pytest.mark.parametrize(("method", "url", "where"), BAD_URLS)
async def test_nul_in_a_path_or_query_is_400_naming_it(
    app_client: httpx.AsyncClient, method: str, url: str, where: str
):
    response = await app_client.request(method, url, headers=H)
    assert response.status_code == 400, response.text
    assert where in response.json()["message"]
    assert "NUL" in response.json()["message"]


async def test_nul_in_a_header_is_400_naming_it(app_client: httpx.AsyncClient):
    headers = [(b"authorization", f"Bearer {ALICE_KEY}".encode()), (b"x-client", b"a\x00b")]
    response = await app_client.get("/core", headers=headers)
    assert response.status_code == 400, response.text
    assert "header 'x-client'" in response.json()["message"]


async def test_valid_unicode_passes_the_guard(app_client: httpx.AsyncClient):
    """Emoji (a surrogate pair once escaped) and non-Latin text are stored as sent."""
    content = "Il préfère le thé 🍵 — 東京"
    body = raw_json({"content": content, "tags": ["😀"], "metadata": {"k": "\\u0000 literally"}})
    headers = {**H, "content-type": "application/json"}
    response = await app_client.post("/memory", content=body, headers=headers)
    assert response.status_code == 201, response.text
    stored = await app_client.get(f"/memory/{response.json()['memory_id']}", headers=H)
    memory = stored.json()["memory"]
    assert memory["content"] == content and memory["tags"] == ["😀"]
    assert memory["metadata"]["k"] == "\\u0000 literally"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"content": "ok", "metadata": {"v": "x" * 10_000_000}}, f"at most {MAX_METADATA_BYTES}"),
        ({"content": "ok", "metadata": {"v": "x" * MAX_METADATA_BYTES}}, "'metadata'"),
        (
            {"content": "ok", "metadata": {"v": [[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]}},
            "nested at most",
        ),
        ({"content": "ok", "tags": [f"t{i}" for i in range(51)]}, "at most 50 tags"),
        ({"content": "ok", "tags": ["x" * 129]}, "at most 128 characters"),
        ({"content": "ok", "categories": [f"c{i}" for i in range(51)]}, "at most 50 items"),
        ({"content": "ok", "labels": {"k": ["v"] * 51}}, "at most 50 items"),
        ({"content": "ok", "labels": {"k": ["x" * 501]}}, "at most 500 characters"),
        ({"content": "ok", "labels": {"k\n": "v"}}, "must match"),
    ],
)
async def test_oversized_fields_are_400_and_write_nothing(
    app_client: httpx.AsyncClient, body: dict, message: str
):
    before = await memory_count(app_client)
    response = await app_client.post("/memory", json=body, headers=H)
    assert response.status_code == 400, response.text[:300]
    assert message in response.json()["message"]
    assert await memory_count(app_client) == before


async def test_non_finite_numbers_are_400(app_client: httpx.AsyncClient):
    """Python's JSON parser takes NaN; no JSON reply could carry it back."""
    headers = {**H, "content-type": "application/json"}
    body = b'{"content": "ok", "metadata": {"x": NaN}}'
    response = await app_client.post("/memory", content=body, headers=headers)
    assert response.status_code == 400
    assert "'metadata.x'" in response.json()["message"]


async def test_a_body_over_the_limit_is_413(falkordb_url: str, tmp_path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, max_body_bytes=4096)
    async with running_client(settings) as client:
        response = await client.post("/memory", json={"content": "x" * 5000}, headers=H)
        assert response.status_code == 413
        assert response.json()["error"] == "payload_too_large"
        assert "at most 4096 bytes" in response.json()["message"]

        async def streamed():  # no Content-Length: counted as it arrives
            yield b'{"content": "'
            for _ in range(10):
                yield b"x" * 1000
            yield b'"}'

        headers = {**H, "content-type": "application/json"}
        response = await client.post("/memory", content=streamed(), headers=headers)
        assert response.status_code == 413
        assert response.json()["error"] == "payload_too_large"
        assert await memory_count(client) == 0

        # A backup archive streams to disk under its own, larger limit.
        archive = {**auth(ADMIN_KEY), "content-type": "application/gzip"}
        response = await client.post("/admin/restore", content=b"x" * 8192, headers=archive)
        assert response.status_code != 413, response.text
        assert "4096" not in response.text


async def test_trace_is_405_with_allow(app_client: httpx.AsyncClient):
    response = await app_client.request("TRACE", "/memory", headers=H)
    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) >= {"POST"}


async def test_store_reports_the_enrichment_that_will_run(falkordb_url: str, tmp_path):
    """`enrichment` follows the queue: queued where enrichment jobs run, disabled where not."""
    for enabled, expected in ((True, "queued"), (False, "disabled")):
        settings = test_settings(
            tmp_path / expected, falkordb_url=falkordb_url, enrichment_enabled=enabled
        )
        async with running_client(settings) as client:
            one = await client.post("/memory", json={"content": "Bob likes tea"}, headers=H)
            batch = await client.post(
                "/memory/batch", json={"memories": [{"content": "Bob likes tea"}]}, headers=H
            )
            assert one.json()["enrichment"] == expected
            assert batch.json()["enrichment"] == expected


@pytest.mark.parametrize("offset", ["-1", "100001", str(2**70)])
async def test_by_tag_offset_out_of_range_is_400(app_client: httpx.AsyncClient, offset: str):
    response = await app_client.get(f"/memory/by-tag?tags=a&offset={offset}", headers=H)
    assert response.status_code == 400
    assert "'offset'" in response.json()["message"]


async def test_by_tag_limit_keeps_automems_clamp_and_reports_it(app_client: httpx.AsyncClient):
    response = await app_client.get(f"/memory/by-tag?tags=a&limit={2**70}", headers=H)
    assert response.status_code == 200
    assert response.json()["limit"] == 200


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_by_tag_takes_at_most_50_tags(app_client: httpx.AsyncClient, method: str):
    stored = await app_client.post("/memory", json={"content": "tagged", "tags": ["t7"]}, headers=H)
    assert stored.status_code == 201
    before = await memory_count(app_client)
    many = ",".join(f"t{i}" for i in range(10_000))
    response = await app_client.request(method, f"/memory/by-tag?tags={many}", headers=H)
    assert response.status_code == 400, response.text
    assert response.json()["message"] == "Too many 'tags': 10000; the limit is 50"
    repeated = [("tags", f"t{i}") for i in range(51)]
    response = await app_client.request(method, "/memory/by-tag", params=repeated, headers=H)
    assert response.status_code == 400, response.text
    long = await app_client.request(method, f"/memory/by-tag?tags={'x' * 129}", headers=H)
    assert long.status_code == 400, long.text
    assert long.json()["message"] == "A tag of 'tags' is too long; the limit is 128 characters"
    assert await memory_count(app_client) == before
    fifty = ",".join(f"t{i}" for i in range(50))
    assert (await app_client.get(f"/memory/by-tag?tags={fifty}", headers=H)).status_code == 200


def test_the_body_precheck_never_misses_what_the_walk_finds():
    for text in ["\x00", "\ud800", "\udfff", "x\udc00", "\ud83d"]:
        body = json.dumps({"k": [text]}).encode()
        assert may_hold_bad_text(body)
        assert find_bad_text(json.loads(body)) is not None
    assert not may_hold_bad_text(json.dumps({"k": "é 😀"}, ensure_ascii=False).encode())
    assert find_bad_text(json.loads(json.dumps({"k": "😀"}))) is None
    assert find_bad_text({"x": math.inf}) == ("x", "must be a finite number (not NaN or Infinity)")


async def test_a_relationship_property_is_bounded(app_client: httpx.AsyncClient):
    ids = [
        (await app_client.post("/memory", json={"content": c}, headers=H)).json()["memory_id"]
        for c in ("Alice chose Postgres", "Alice had chosen MySQL")
    ]
    body = {"memory1_id": ids[0], "memory2_id": ids[1], "type": "PREFERS_OVER"}
    response = await app_client.post("/associate", json={**body, "reason": "x" * 501}, headers=H)
    assert response.status_code == 400
    assert "'reason' must be at most 500 characters" in response.json()["message"]
