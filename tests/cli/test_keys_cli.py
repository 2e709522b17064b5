"""`engram keys add | list | revoke` against a listening server with the real stores."""

import json

import httpx

from app.cli.errors import AUTH_REFUSED, FAILED, USAGE
from tests.cli.conftest import LiveServer
from tests.conftest import ALICE_KEY


def core_status(server: LiveServer, key: str) -> int:
    return httpx.get(f"{server.url}/core", headers={"Authorization": f"Bearer {key}"}).status_code


def test_add_list_and_revoke_a_key(live_server: LiveServer) -> None:
    added = live_server.run(
        "--json", "keys", "add", "--user", "erin", "--agent-prefix", "bot", "--label", "ci"
    )
    assert added.exit_code == 0, added.output
    made = json.loads(added.stdout)
    assert made["user_id"] == "erin" and made["agent_prefix"] == "bot" and made["label"] == "ci"
    assert core_status(live_server, made["api_key"]) == 200

    table = live_server.run("keys", "add", "--user", "erin")
    assert table.exit_code == 0 and "engram_" in table.output and "not shown again" in table.output

    listed = live_server.run("--json", "keys", "list", "--user", "erin")
    assert listed.exit_code == 0, listed.output
    keys = json.loads(listed.stdout)["keys"]
    assert len(keys) == 2 and made["key_id"] == keys[0]["key_id"]
    assert made["api_key"] not in listed.stdout

    revoked = live_server.run("keys", "revoke", made["key_id"])
    assert revoked.exit_code == 0, revoked.output
    assert "Revoked" in revoked.output and made["key_id"] in revoked.output
    assert core_status(live_server, made["api_key"]) == 401
    remaining = json.loads(live_server.run("--json", "keys", "list", "--user", "erin").stdout)
    assert [k["key_id"] for k in remaining["keys"]] == [keys[1]["key_id"]]
    with_revoked = live_server.run("keys", "list", "--user", "erin", "--revoked")
    assert with_revoked.exit_code == 0 and made["key_id"] in with_revoked.output


def test_failures_exit_with_their_codes(live_server: LiveServer) -> None:
    assert live_server.run("keys", "add").exit_code == USAGE  # --user is required
    unknown = live_server.run("keys", "revoke", "0123456789abcdef")
    assert unknown.exit_code == FAILED and "not found" in unknown.output
    bad = live_server.run("keys", "add", "--user", "erin", "--agent-prefix", "two words")
    assert bad.exit_code == FAILED and "agent_prefix" in bad.output
    refused = live_server.run("keys", "list", admin_key=ALICE_KEY)
    assert refused.exit_code == AUTH_REFUSED
