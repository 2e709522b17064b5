"""/docs with no network: a headless Chromium (as in tests/console) loads the page with every
request that leaves Engram's origin blocked and recorded, and Swagger UI renders the API from
assets Engram serves itself."""

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Route, expect, sync_playwright

from app.main import create_app
from tests.conftest import test_settings
from tests.console.test_console_browser import CHROMIUM_ARGS, _chromium
from tests.hardening.live import serve


@pytest.fixture
def browser() -> Iterator[Browser]:
    executable = _chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def test_docs_render_with_every_request_off_the_origin_blocked(
    browser: Browser, falkordb_url: str, tmp_path: Path
) -> None:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    with serve(create_app(settings)) as base:
        page = browser.new_page()
        left: list[str] = []

        def only_the_origin(route: Route) -> None:
            if route.request.url.startswith(f"{base}/"):
                route.continue_()
            else:
                left.append(route.request.url)
                route.abort()

        page.route("**/*", only_the_origin)
        failures: list[str] = []
        page.on("pageerror", lambda e: failures.append(str(e)))
        page.goto(f"{base}/docs")
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("Engram")
        expect(page.locator(".opblock-summary-path", has_text="/recall").first).to_be_visible()

        page.goto(f"{base}/redoc")
        expect(page.locator("h1", has_text="Engram")).to_be_visible()
        expect(page.get_by_text("/recall/context").first).to_be_attached()
        assert left == [], f"requests left the origin: {left}"
        assert failures == []


def test_the_docs_pages_name_no_other_host(falkordb_url: str, tmp_path: Path) -> None:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    with serve(create_app(settings)) as base, httpx.Client(base_url=base) as client:
        for path in ("/docs", "/redoc"):
            page = client.get(path)
            assert page.status_code == 200
            assert "http" not in page.text, f"{path} names another host"
            assert "default-src 'self'" in page.headers["content-security-policy"]
        asset = client.get("/docs/assets/swagger-ui-bundle.js")
        assert asset.status_code == 200 and "javascript" in asset.headers["content-type"]
