"""Schemathesis against a live Engram (a real uvicorn server and stores): every operation of the
OpenAPI document, every check, a bounded number of examples.

Gating: no server error (ST101), no status the document does not declare (ST103), no request the
server dropped without an answer. The other checks' findings are printed as a report: they are
Engram's documented choices (docs/errors.md), e.g. the history of a deleted memory stays readable.

ENGRAM_FUZZ_EXAMPLES (examples per operation) and ENGRAM_FUZZ_SEED change the run; `make fuzz`
runs this file alone.
"""

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

from app.main import create_app
from app.storage.graph.store import GraphStore
from tests.conftest import ADMIN_KEY, ALICE_KEY, auth, test_settings
from tests.hardening.live import serve

EXAMPLES = int(os.environ.get("ENGRAM_FUZZ_EXAMPLES", "60"))
SEED = int(os.environ.get("ENGRAM_FUZZ_SEED", "20261201"))
# A run's time grows with its examples: the long run (docs/operations.md) must not hit a fixed cap.
RUN_TIMEOUT_S = max(900, 20 * EXAMPLES)
GATING = {"ST101": "server error", "ST103": "undocumented status code"}
SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"


def fuzz(base: str, key: str, paths: str, examples: int, report: Path) -> dict:
    """One schemathesis run over the operations whose path matches `paths`; its JSON report."""
    command = [
        str(SCHEMATHESIS),
        "run",
        f"{base}/openapi.json",
        "--url",
        base,
        "--header",
        f"Authorization: Bearer {key}",
        "--include-path-regex",
        paths,
        "--checks",
        "all",
        "--max-examples",
        str(examples),
        "--seed",
        str(SEED),
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--no-color",
        "--output-truncate",
        "true",
        "--report",
        "json",
        "--report-json-path",
        str(report),
    ]
    done = subprocess.run(  # in the test's directory: schemathesis keeps its state in the cwd
        command,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
        cwd=report.parent,
    )
    if not report.exists():
        raise AssertionError(f"schemathesis did not run:\n{done.stdout[-3000:]}{done.stderr}")
    result = json.loads(report.read_text())
    result["output"] = done.stdout
    return result


def test_fuzzing_finds_no_server_error_and_no_undocumented_status(
    falkordb_url: str, tmp_path: Path
):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, remember_rate_per_minute=100_000)
    with serve(create_app(settings)) as base:
        runs = [
            fuzz(
                base,
                ALICE_KEY,
                "^/(?!admin|mcp|backup|consolidate)",
                EXAMPLES,
                tmp_path / "user.json",
            ),
            fuzz(
                base,
                ADMIN_KEY,
                "^/(admin/(jobs|dead-letters|sync|keys)|backup|consolidate)",
                max(1, EXAMPLES // 3),
                tmp_path / "admin.json",
            ),
        ]
    gating, reported = [], []
    for run in runs:
        assert run["complete"] and run["operations"]["tested"] > 0
        assert not run["errors"], run["errors"]  # e.g. a connection closed without an answer
        for failure in run["failures"]:
            line = f"{failure['code']} {failure['title']} ×{failure['count']}: " + ", ".join(
                failure["operations"]
            )
            (gating if failure["code"] in GATING else reported).append(line)
    generated = sum(run["test_cases"]["generated"] for run in runs)
    findings = "\n".join(f"  {line}" for line in reported) or "  none"
    sys.stdout.write(
        f"\nschemathesis: {generated} test cases; other checks' findings:\n{findings}\n"
    )
    details = "\n".join(run["output"][-6000:] for run in runs)
    assert not gating, "\n".join(gating) + "\n" + details


# --- What issue 41's probes found, asked again on every run ---------------------------------

SOME_ID = "00000000-0000-4000-8000-000000000000"
# A query-string boolean other than true/false/1/0 was read as true (or as the default).
NOT_BOOLEANS = [
    (ALICE_KEY, "GET", "/core?include_archived=yes", "include_archived"),
    (ALICE_KEY, "GET", "/startup-recall?memoryless=on", "memoryless"),
    (ALICE_KEY, "GET", "/memory/by-tag?tags=x&include_archived=y", "include_archived"),
    (ALICE_KEY, "GET", "/recall?query=x&rerank=yes", "rerank"),
    (ALICE_KEY, "GET", "/recall?query=x&current_only=no", "current_only"),
    (ALICE_KEY, "DELETE", f"/memory/{SOME_ID}?erase=yes", "erase"),
    (ALICE_KEY, "DELETE", "/me?confirm=alice&erase=on", "erase"),
    (ADMIN_KEY, "GET", "/admin/keys?include_revoked=yes", "include_revoked"),
    (ADMIN_KEY, "POST", "/admin/reembed?wait=yes", "wait"),
]
METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE"}


async def _plant_unreadable(url: str, graph_name: str, memory_id: str) -> None:
    graph = GraphStore(url, graph_name)
    try:
        await graph.query("MATCH (m:Memory {id: $id}) SET m.metadata = ''", {"id": memory_id})
    finally:
        await graph.close()


def test_what_the_probes_of_issue_41_found_stays_fixed(falkordb_url: str, tmp_path: Path):
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    user, admin = auth(ALICE_KEY), auth(ADMIN_KEY)
    with serve(create_app(settings)) as base, httpx.Client(base_url=base, timeout=60) as client:
        for path in ("/memory/", "/recall/", "/health/"):  # no Location from the Host header
            answer = client.get(path, headers={**user, "Host": "evil.example"})
            assert answer.status_code == 404 and "location" not in answer.headers, path
            assert "without a slash" in answer.json()["message"]
        for key, method, path, name in NOT_BOOLEANS:
            answer = client.request(method, path, headers=auth(key))
            assert answer.status_code == 400 and name in answer.json()["message"], answer.text
        unknown = client.delete("/admin/keys/nope", headers=admin)
        assert unknown.status_code == 404 and unknown.json()["error"] == "not_found"
        _check_allow_headers(client, admin)

        stored = client.post("/memory", json={"content": "A half-written note"}, headers=user)
        memory_id = stored.json()["memory_id"]
        asyncio.run(_plant_unreadable(falkordb_url, settings.falkordb_graph, memory_id))
        found = client.get("/recall", params={"query": "half-written note"}, headers=user)
        assert found.status_code == 200 and memory_id in found.text
        assert client.get(f"/memory/{memory_id}", headers=user).json()["memory"]["metadata"] == {}
        fsck = client.post("/admin/fsck", json={"apply": True}, headers=user).json()
        assert fsck["counts"]["unreadable_property"] == 1 and fsck["applied"] >= 1


def _check_allow_headers(client: httpx.Client, headers: dict[str, str]) -> None:
    """Every 405's Allow names each method documented for its path, and none answered 405."""
    for template, operations in client.get("/openapi.json").json()["paths"].items():
        path = re.sub(r"\{[^}]+\}", SOME_ID, template)
        documented = {method.upper() for method in operations} & METHODS
        refused, allowed = set(), set()
        for method in sorted(METHODS - documented):  # never runs a handler of this path
            answer = client.request(method, path, headers=headers)
            if answer.status_code == 405:
                refused.add(method)
                allowed |= {m.strip() for m in answer.headers["allow"].split(",")}
        assert not refused or documented <= allowed, (template, documented, allowed)
        assert not (refused & allowed), (template, refused, allowed)
