"""Schemathesis against a live Engram (a real uvicorn server and stores): every operation of the
OpenAPI document, every check, a bounded number of examples.

Gating: no server error (ST101), no status the document does not declare (ST103), no request the
server dropped without an answer. The other checks' findings are printed as a report: they are
Engram's documented choices (docs/errors.md), e.g. the history of a deleted memory stays readable.

ENGRAM_FUZZ_EXAMPLES (examples per operation) and ENGRAM_FUZZ_SEED change the run; `make fuzz`
runs this file alone.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from app.main import create_app
from tests.conftest import ADMIN_KEY, ALICE_KEY, test_settings
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
