"""Issue rows 3 and 4: every failure gets an answer on a connection that stays open, and a store
outage is a 503 `store_unavailable` with Retry-After, never a 500 (a real server and socket)."""

import http.client
import json
import socket
from pathlib import Path

from app.http_server import URL_TOO_LONG
from app.main import create_app
from app.storage.falkordb.server import EmbeddedFalkorDB
from tests.conftest import ALICE_KEY, auth, free_port, test_settings
from tests.hardening.live import serve

H = {**auth(ALICE_KEY), "content-type": "application/json"}


def request(
    conn: http.client.HTTPConnection, method: str, path: str, body: object = None
) -> tuple[int, dict, dict]:
    data = None if body is None else json.dumps(body)
    conn.request(method, path, body=data, headers=H)
    response = conn.getresponse()
    payload = json.loads(response.read() or b"{}")
    return response.status, dict(response.getheaders()), payload


def test_an_unexpected_error_is_a_500_on_a_connection_that_stays_open(
    falkordb_url: str, tmp_path: Path
):
    app = create_app(test_settings(tmp_path, falkordb_url=falkordb_url))

    async def broken() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/test/broken", broken)
    with serve(app) as base:
        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
        status, _, body = request(conn, "GET", "/test/broken")
        socket_used = conn.sock
        assert status == 500
        assert body == {
            "status": "error",
            "code": 500,
            "error": "internal_error",
            "message": "Internal server error",
        }
        status, _, _ = request(conn, "POST", "/memory", {"content": "Bob likes tea"})
        assert status == 201
        assert conn.sock is socket_used  # the same keep-alive connection
        conn.close()


async def test_a_lost_falkordb_is_a_503_with_retry_after(tmp_path: Path):
    server = EmbeddedFalkorDB(data_dir=tmp_path / "falkordb", port=free_port())
    url = await server.start()
    try:
        app = create_app(test_settings(tmp_path / "engram", falkordb_url=url))
        with serve(app) as base:
            conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
            status, _, created = request(conn, "POST", "/memory", {"content": "Bob likes tea"})
            assert status == 201
            server.kill()
            for method, path, body in [
                ("POST", "/memory", {"content": "Alice likes coffee"}),
                ("GET", f"/memory/{created['memory_id']}", None),
                ("GET", "/memory/by-tag?tags=a", None),
                ("POST", "/recall", {"query": "tea"}),
                ("GET", "/core", None),
            ]:
                status, headers, payload = request(conn, method, path, body)
                assert status == 503, (method, path, status, payload)
                assert payload["error"] == "store_unavailable"
                assert int(headers["retry-after"]) > 0
            status, _, health = request(conn, "GET", "/health")
            assert status == 200 and health["status"] != "healthy"
            status, headers, payload = request(conn, "GET", "/ready")
            assert status == 503 and "FalkorDB" in payload["message"]
            assert int(headers["retry-after"]) > 0
            conn.close()
    finally:
        server.kill()


def raw_exchange(base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Sends raw bytes as a request; the status, headers and body of the reply."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    status_line, *lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, body


def test_what_the_http_server_refuses_is_answered_in_the_envelope(
    falkordb_url: str, tmp_path: Path
):
    app = create_app(test_settings(tmp_path, falkordb_url=falkordb_url))
    with serve(app) as base:
        query = "tags=" + "x" * 1_000_000
        long_get = f"GET /memory/by-tag?{query} HTTP/1.1\r\nHost: engram\r\n\r\n".encode()
        status, headers, body = raw_exchange(base, long_get)
        assert status == 414
        assert headers["content-type"] == "application/json"
        assert json.loads(body) == {
            "status": "error",
            "code": 414,
            "error": "uri_too_long",
            "message": URL_TOO_LONG,
        }
        status, headers, body = raw_exchange(base, b"NOT HTTP AT ALL\r\n\r\n")
        assert status == 400 and headers["content-type"] == "application/json"
        assert json.loads(body)["error"] == "bad_request"
        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
        assert request(conn, "GET", "/memory/by-tag?tags=a")[0] == 200  # still serving


async def test_a_trailing_slash_is_a_404_without_a_location_from_the_host_header(app_client):
    """Issue 41: the redirect to the path without its slash was built from the Host header."""
    headers = {**auth(ALICE_KEY), "Host": "attacker.example"}
    for method, path in (("GET", "/memory/"), ("POST", "/memory/"), ("GET", "/recall/")):
        answer = await app_client.request(method, path, headers=headers, json={"content": "x"})
        assert answer.status_code == 404 and "location" not in answer.headers, (method, path)
        assert answer.json()["message"] == f"No route at {path}: Engram's paths end without a slash"
    assert (await app_client.get("/health", headers=headers)).status_code == 200


async def test_a_405_allows_every_method_routed_at_its_path(app_client):
    """Issue 41: the Allow header named only the first route's methods at a path."""
    memory = "/memory/00000000-0000-4000-8000-000000000000"
    for method, path, allowed in (
        ("PUT", memory, "GET, PATCH, DELETE"),
        ("PUT", "/memory", "GET, POST"),
        ("PUT", "/recall", "GET, POST"),
        ("GET", "/associate", "POST, DELETE"),
        ("DELETE", "/me/settings", "GET, PUT"),
        ("POST", f"{memory}/artifacts/00000000-0000-4000-8000-000000000001", "GET, DELETE"),
    ):
        answer = await app_client.request(method, path, headers=auth(ALICE_KEY))
        assert answer.status_code == 405, (method, path, answer.text)
        assert answer.headers["allow"] == allowed, (method, path)
