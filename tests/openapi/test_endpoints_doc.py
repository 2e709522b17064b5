"""docs/api.md's endpoint table lists what the app serves: every operation of the app's OpenAPI
document is in it, and every endpoint in it is routed by the app (the console's page and /mcp
are routed outside the OpenAPI document)."""

import re
from pathlib import Path

from fastapi import FastAPI
from starlette.routing import Match

from app.main import create_app
from tests.conftest import test_settings

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
# A table's first cell names endpoints as `GET /path?query`, `POST`/`GET /path` or `/path` (any
# method); path parameters are compared by position, not by name.
ENDPOINT = re.compile(r"`(?:([A-Z]+(?:`/`[A-Z]+)*) )?(/[^`?\s]*)[^`]*`")
PARAMETER = re.compile(r"\{[^}]*\}")
ANY = "*"


def documented(doc: str) -> set[tuple[str, str]]:
    """(method, path) of every endpoint in the first column of the "## Endpoints" table."""
    section = doc.split("\n## Endpoints\n", 1)[1].split("\n#", 1)[0]
    found = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        for methods, path in ENDPOINT.findall(line.split(" | ", 1)[0]):
            for method in methods.split("`/`") if methods else [ANY]:
                found.add((method, PARAMETER.sub("{}", path)))
    return found


def in_openapi(app: FastAPI) -> set[tuple[str, str]]:
    paths = app.openapi()["paths"]
    return {(m.upper(), PARAMETER.sub("{}", p)) for p, ops in paths.items() for m in ops}


def routed(app: FastAPI, method: str, path: str) -> bool:
    """Whether a route of the app answers `method` on `path` (any method for ANY)."""
    scope = {"type": "http", "method": "GET" if method == ANY else method, "root_path": ""}
    scope |= {"path": path.replace("{}", "x"), "path_params": {}, "app": app}
    wanted = {Match.FULL, Match.PARTIAL} if method == ANY else {Match.FULL}
    return any(route.matches(scope)[0] in wanted for route in app.router.routes)


def test_the_parser_reads_every_form_of_the_table() -> None:
    doc = (
        "# API\n\n## Endpoints\n\n| endpoint | what |\n| --- | --- |\n"
        "| `GET`/`DELETE /memory/{id}?erase=true`, `POST /remember` | a, b |\n"
        "| `/mcp` | `GET /not/this/column` |\n\n## Next\n\n| `GET /nor/this/table` | |\n"
    )
    assert documented(doc) == {
        ("GET", "/memory/{}"),
        ("DELETE", "/memory/{}"),
        ("POST", "/remember"),
        (ANY, "/mcp"),
    }


def test_the_endpoint_table_lists_every_route_and_only_routes(tmp_path: Path) -> None:
    app = create_app(test_settings(tmp_path))
    listed = documented(API_DOC.read_text())
    missing = sorted(in_openapi(app) - listed)
    extra = sorted(e for e in listed - in_openapi(app) if not routed(app, *e))
    assert (missing, extra) == ([], []), (
        f"docs/api.md's endpoint table lacks {missing} and lists {extra}, which the app lacks"
    )
