"""Issue rows 3 and 4: every failure gets an answer on a connection that stays open, and a store
outage is a 503 `store_unavailable` with Retry-After, never a 500 (a real server and socket)."""

import http.client
import json
from pathlib import Path

from app.main import create_app
from app.storage.falkordb_server import EmbeddedFalkorDB
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
