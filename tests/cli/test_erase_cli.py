"""`engram erase` against a listening server with the real stores."""

import json

import httpx

from app.cli.errors import USAGE
from tests.cli.conftest import LiveServer
from tests.conftest import BOB_KEY

BOB = {"Authorization": f"Bearer {BOB_KEY}"}


def remember(server: LiveServer, content: str) -> str:
    response = httpx.post(f"{server.url}/memory", json={"content": content}, headers=BOB)
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


def test_erase_a_memory_then_a_user(live_server: LiveServer) -> None:
    first, second = remember(live_server, "Bob's first secret"), remember(live_server, "Second")
    result = live_server.run("--json", "erase", "--memory", first, "--yes")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["erased"] == [first]
    history = httpx.get(f"{live_server.url}/memory/{first}/history", headers=BOB).json()
    assert history["revisions"] == [] and history["events"][-1]["action"] == "erase"

    result = live_server.run("erase", "--user", "bob", "--yes")
    assert result.exit_code == 0, result.output
    assert "Erasure" in result.output
    assert httpx.get(f"{live_server.url}/memory/{second}", headers=BOB).status_code == 404


def test_erase_asks_first_and_needs_one_target(live_server: LiveServer) -> None:
    kept = remember(live_server, "Kept because the operator said no")
    declined = live_server.run("erase", "--memory", kept, input="n\n")
    assert declined.exit_code == 1
    assert httpx.get(f"{live_server.url}/memory/{kept}", headers=BOB).status_code == 200
    assert live_server.run("erase", "--yes").exit_code == USAGE
    assert live_server.run("erase", "--user", "bob", "--memory", kept, "--yes").exit_code == USAGE
    missing = live_server.run("erase", "--memory", "00000000-0000-0000-0000-000000000000", "-y")
    assert missing.exit_code == 1 and "not found" in missing.output
