"""The TypeScript client in a real browser (Debian's chromium driven by Playwright): a page on
another origin imports the committed dist/ as an ES module, as a web app would, and works against
a live Engram through CORS: a store with its Idempotency-Key, recall, a typed error carrying the
request id the browser may read, and the streamed export."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from playwright.sync_api import Browser, sync_playwright

from app.main import create_app
from tests.conftest import ALICE_KEY, test_settings
from tests.hardening.live import serve

DIST = Path(__file__).resolve().parents[2] / "clients" / "typescript" / "dist"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
CHROMIUM_ARGS += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]

PAGE = """<!doctype html>
<meta charset="utf-8">
<title>engram-client in a browser</title>
<script type="module">
import { Engram, NotFoundError } from "./dist/index.js";

window.run = async (baseUrl, apiKey) => {
  const engram = new Engram({ baseUrl, apiKey });
  const tag = "browser-" + Math.random().toString(36).slice(2);
  const stored = await engram.memories.store({ content: "Browsers keep memories", tags: [tag] });
  const found = await engram.recall({ query: "browsers keep memories", tags: [tag], limit: 1 });
  let missing = null;
  try {
    await engram.memories.get("00000000-0000-4000-8000-000000000000");
  } catch (error) {
    missing = {
      notFound: error instanceof NotFoundError,
      code: error.code,
      error: error.error,
      requestId: error.requestId ?? null,
    };
  }
  const exported = [];
  for await (const line of engram.export()) if (line.memory) exported.push(line.memory.id);
  return { stored: stored.memory_id, found: found.results.map((r) => r.id), missing, exported };
};
window.ready = true;
</script>
"""


def page_app() -> FastAPI:
    """The web app: one page and the package's dist/, as a bundler-less site serves them."""
    app = FastAPI()
    app.mount("/dist", StaticFiles(directory=DIST), name="dist")

    @app.get("/")
    def index() -> HTMLResponse:
        return HTMLResponse(PAGE)

    return app


@pytest.fixture
def browser() -> Iterator[Browser]:
    executable = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(executable).exists():
        pytest.skip("No chromium to drive: `apt-get install chromium` (make test installs it)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def test_the_client_works_in_a_browser_on_another_origin(
    browser: Browser, falkordb_url: str, tmp_path: Path
):
    with serve(page_app()) as site:
        settings = test_settings(tmp_path, falkordb_url=falkordb_url, cors_origins=[site])
        with serve(create_app(settings)) as engram:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(site + "/")
            page.wait_for_function("window.ready === true")
            result = page.evaluate("([url, key]) => window.run(url, key)", [engram, ALICE_KEY])

    assert errors == []
    assert result["found"] == [result["stored"]]
    missing = result["missing"]
    assert missing["notFound"] and (missing["code"], missing["error"]) == (404, "not_found")
    assert missing["requestId"], "X-Request-Id is exposed to the page"
    assert result["stored"] in result["exported"]
