"""/mcp as an OAuth protected resource (RFC 9728): the metadata names the operator's
authorization server, a refusal points at it, and that server's access tokens (JWTs checked
against its published keys, here served on loopback) act as their user; any other token is
refused. Without the settings, nothing is published."""

import json
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.conftest import ALICE_KEY, running_client, test_settings
from tests.live import live_server
from tests.mcp.test_mcp_http import call, mcp_session

RESOURCE = "https://memory.example.test/mcp"
ISSUER = "https://login.example.test/"
METADATA_URL = "https://memory.example.test/.well-known/oauth-protected-resource/mcp"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


SIGNING_KEY = new_key()


@pytest.fixture(scope="module")
def jwks_url() -> Iterator[str]:
    """The authorization server's published keys, on a loopback port of its own."""
    jwk = {**RSAAlgorithm.to_jwk(SIGNING_KEY.public_key(), as_dict=True), "kid": "k1"}
    body = json.dumps({"keys": [{**jwk, "use": "sig", "alg": "RS256"}]}).encode()

    class Keys(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Keys)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    server.shutdown()


@pytest.fixture(scope="module")
async def base_url(
    falkordb_url: str, jwks_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    settings = test_settings(
        tmp_path_factory.mktemp("oauth"),
        falkordb_url=falkordb_url,
        mcp_oauth_authorization_servers=[ISSUER],
        mcp_oauth_jwks_url=jwks_url,
        mcp_oauth_resource=RESOURCE,
    )
    async with live_server(settings) as url:
        yield url


def token(key: rsa.RSAPrivateKey = SIGNING_KEY, kid: str = "k1", **claims: Any) -> str:
    now = int(time.time())
    values = {"iss": ISSUER, "aud": RESOURCE, "sub": "oauth-alice", "exp": now + 600, "iat": now}
    return jwt.encode({**values, **claims}, key, algorithm="RS256", headers={"kid": kid})


async def initialize(base_url: str, headers: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base_url) as client:
        return await client.post("/mcp", json=INITIALIZE, headers=ACCEPT | headers)


async def test_the_metadata_names_the_authorization_server(base_url: str) -> None:
    async with httpx.AsyncClient(base_url=base_url) as client:
        for path in (
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
        ):
            answer = await client.get(path)
            assert answer.status_code == 200, path
            assert answer.json() == {
                "resource": RESOURCE,
                "authorization_servers": [ISSUER],
                "bearer_methods_supported": ["header"],
                "resource_name": "Engram",
            }


async def test_a_refusal_points_at_the_metadata(base_url: str) -> None:
    for headers in ({}, {"Authorization": "Bearer not-a-key"}):
        refused = await initialize(base_url, headers)
        assert refused.status_code == 401
        assert refused.headers["WWW-Authenticate"] == f'Bearer resource_metadata="{METADATA_URL}"'
        assert refused.json()["status"] == "error"


async def test_an_access_token_of_the_server_acts_as_its_user(base_url: str) -> None:
    user = f"oauth-{uuid.uuid4().hex[:8]}"
    headers = {"Authorization": f"Bearer {token(sub=user)}", "X-Agent-Id": "hosted"}
    async with mcp_session(base_url, headers) as session:
        stored = await call(session, "store", content="Tokens from the login server work")
        memory = await call(session, "get", memory_id=stored["memory_id"])
    assert (memory["user_id"], memory["agent_id"]) == (user, "hosted")
    async with mcp_session(base_url, {"Authorization": f"Bearer {ALICE_KEY}"}) as alice:
        found = await call(alice, "recall", query="login server tokens", limit=10)
    assert stored["memory_id"] not in [item["id"] for item in found["results"]]


@pytest.mark.parametrize(
    "presented",
    [
        pytest.param(lambda: token(aud="https://another.example.test/mcp"), id="audience"),
        pytest.param(lambda: token(iss="https://evil.example.test/"), id="issuer"),
        pytest.param(lambda: token(exp=int(time.time()) - 60), id="expired"),
        pytest.param(lambda: token(key=new_key()), id="another-key"),
        pytest.param(lambda: token(sub=""), id="no-user"),
        pytest.param(
            lambda: jwt.encode(
                {"iss": ISSUER, "aud": RESOURCE, "sub": "x", "exp": int(time.time()) + 60},
                "a-shared-secret-of-32-bytes-or-more!",
                algorithm="HS256",
                headers={"kid": "k1"},
            ),
            id="symmetric",
        ),
    ],
)
async def test_other_tokens_are_refused(base_url: str, presented: Any) -> None:
    refused = await initialize(base_url, {"Authorization": f"Bearer {presented()}"})
    assert refused.status_code == 401, refused.text


async def test_without_an_authorization_server_nothing_is_published(
    falkordb_url: str, tmp_path: Any
) -> None:
    async with running_client(test_settings(tmp_path, falkordb_url=falkordb_url)) as client:
        assert (await client.get("/.well-known/oauth-protected-resource")).status_code == 404
        refused = await client.post("/mcp", json=INITIALIZE, headers=ACCEPT)
        assert refused.status_code == 401 and refused.headers["WWW-Authenticate"] == "Bearer"
