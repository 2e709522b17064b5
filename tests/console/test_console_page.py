"""/console without a browser: the page and every file it loads are served, each with the Content
Security Policy; the page runs no inline script and loads nothing from another origin; memory text
is never written as markup; the console widens no permission."""

import hashlib
import os
import re
from pathlib import Path

import httpx

from app.console.router import STATIC_DIR
from tests.conftest import ALICE_KEY, auth

KINDS = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}
IMPORT = re.compile(r"""(?:from|import)\s+["'](\.\.?/[\w./-]+\.js)["']""")
VENDOR = STATIC_DIR / "vendor"
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


def _loaded_files() -> list[str]:
    """Every file the page loads: its stylesheet and script, and the scripts those import."""
    page = (STATIC_DIR / "index.html").read_text()
    files = re.findall(r'(?:src|href)="/console/static/([^"]+)"', page)
    pending = [f for f in files if f.endswith(".js")]
    while pending:
        script = pending.pop()
        for name in IMPORT.findall((STATIC_DIR / script).read_text()):
            path = os.path.normpath(str(Path(script).parent / name))
            if path not in files:
                files.append(path)
                pending.append(path)
    return files


def _csp(response: httpx.Response) -> dict[str, str]:
    policy = response.headers["content-security-policy"]
    return dict(part.strip().split(" ", 1) for part in policy.split(";"))


async def test_the_page_is_served_without_a_key_with_a_strict_policy(
    app_client: httpx.AsyncClient,
) -> None:
    response = await app_client.get("/console")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = _csp(response)
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self'"
    assert policy["connect-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe" not in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_every_file_the_page_loads_exists_and_carries_the_policy(
    app_client: httpx.AsyncClient,
) -> None:
    files = _loaded_files()
    assert {"style.css", "icon.svg", "js/app.js", "js/api.js", "js/detail.js"} <= set(files)
    assert "vendor/cytoscape.esm.min.js" in files
    for name in files:
        assert (STATIC_DIR / name).is_file(), name
        response = await app_client.get(f"/console/static/{name}")
        assert response.status_code == 200, name
        assert _csp(response)["script-src"] == "'self'", name
        kind = KINDS[Path(name).suffix]
        assert response.headers["content-type"].startswith(kind), name


def test_no_inline_script_no_other_origin_and_no_markup_from_data() -> None:
    page = (STATIC_DIR / "index.html").read_text()
    assert re.findall(r"<script\b[^>]*>", page) == [
        '<script type="module" src="/console/static/js/app.js">'
    ]
    assert "</script>" in page and not re.search(r"<script[^>]*>\s*\S+\s*</script>", page)
    assert not re.search(r"\son[a-z]+=", page), "inline event handlers are inline scripts"
    assert "style=" not in page
    for path in STATIC_DIR.rglob("*"):
        if path.is_file() and VENDOR not in path.parents:
            text = re.sub(r'xmlns="[^"]*"', "", path.read_text())  # a name, not a resource
            text = text.replace(f'"{SVG_NAMESPACE}"', "")  # the same name, in createElementNS
            assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text), path
            assert "innerHTML" not in text and "insertAdjacentHTML" not in text, path
            assert "eval(" not in text and "document.write" not in text, path


async def test_files_outside_the_console_are_not_served(app_client: httpx.AsyncClient) -> None:
    for path in (
        "/console/static/missing.js",
        "/console/static/../router.py",
        "/console/static/%2e%2e/router.py",
        "/console/static/..%2f..%2fconfig.py",
    ):
        response = await app_client.get(path)
        assert response.status_code == 404, path
        assert response.json()["status"] == "error", path  # the error envelope


async def test_the_console_adds_no_route_to_the_api_and_no_permission(
    app_client: httpx.AsyncClient,
) -> None:
    spec = (await app_client.get("/openapi.json")).json()
    assert not [path for path in spec["paths"] if path.startswith("/console")]
    # The page's own fetches carry the key: without one the API refuses as it always did.
    assert (await app_client.get("/memory")).status_code == 401
    assert (await app_client.get("/memory", headers=auth(ALICE_KEY))).status_code == 200


def test_the_package_ships_the_console_files() -> None:
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    globs = re.search(r'"app\.console" = \[([^\]]*)\]', pyproject)
    assert globs, "app.console's static files must be package data (the Docker image)"
    patterns = re.findall(r'"([^"]+)"', globs.group(1))
    shipped = {
        str(p.relative_to(STATIC_DIR.parent)) for g in patterns for p in STATIC_DIR.parent.glob(g)
    }
    every = {str(p.relative_to(STATIC_DIR.parent)) for p in STATIC_DIR.rglob("*") if p.is_file()}
    assert every == shipped


def test_the_vendored_library_is_the_published_one_with_its_licence() -> None:
    """vendor/README.md names each file's package, version and sha256; the licence ships."""
    readme = (VENDOR / "README.md").read_text()
    for path in VENDOR.iterdir():
        if path.suffix == ".js":
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            assert f"`{path.name}`" in readme and digest in readme, path.name
    assert "Permission is hereby granted" in (VENDOR / "cytoscape.LICENSE.txt").read_text()
    library = (VENDOR / "cytoscape.esm.min.js").read_text()
    assert "innerHTML" not in library and "document.write" not in library
