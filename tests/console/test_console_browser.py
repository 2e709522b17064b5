"""The console in a real headless browser (Debian's chromium driven by Playwright) against a live
Engram on real stores: a wrong key is refused on screen; signed in, a search shows results with
their score components; a memory's history shows its revisions; pin and delete go through the
API (checked through the API); memory text is shown as text, never run.

Screenshots go to $CONSOLE_SCREENSHOTS when set (docs/console/ holds the committed ones), else to
the test's temporary directory.
"""

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from app.main import create_app
from tests.conftest import ALICE_KEY, BOB_KEY, auth, test_settings
from tests.hardening.live import serve

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUERY = "what tea does Alice drink"
HOSTILE = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>'


def _chromium() -> str:
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if not found:
        pytest.skip("No chromium to drive: `apt-get install chromium` (make test installs it)")
    return found


@pytest.fixture
def browser() -> Iterator[Browser]:
    executable = _chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("CONSOLE_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _store(api: httpx.Client, key: str, content: str, tags: list[str]) -> str:
    response = api.post("/memory", headers=auth(key), json={"content": content, "tags": tags})
    assert response.status_code == 201, response.text
    return response.json()["memory_id"]


def _seed(api: httpx.Client) -> dict[str, str]:
    tea = _store(api, ALICE_KEY, "Alice prefers green tea in the morning", ["drinks"])
    changed = api.patch(
        f"/memory/{tea}",
        headers=auth(ALICE_KEY),
        json={"content": "Alice prefers oolong tea in the morning, not green tea"},
    )
    assert changed.status_code == 200, changed.text
    return {
        "tea": tea,
        "berlin": _store(api, ALICE_KEY, "Alice moved to Berlin in March", ["home"]),
        "hostile": _store(api, ALICE_KEY, f"Tea notes {HOSTILE}", ["drinks"]),
        "bob": _store(api, BOB_KEY, "Bob drinks green tea every morning", ["drinks"]),
    }


def _sign_in(page: Page, key: str) -> None:
    page.fill("#key", key)
    page.click("#sign-in-form button[type=submit]")


def test_the_console_signs_in_searches_shows_history_and_deletes(
    browser: Browser, falkordb_url: str, tmp_path: Path
) -> None:
    shots = _shots(tmp_path)
    settings = test_settings(tmp_path, falkordb_url=falkordb_url)
    with serve(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as api:
        ids = _seed(api)
        page = browser.new_page(viewport={"width": 1200, "height": 760})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on(
            "response",
            lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("request", lambda r: None if r.url.startswith(base) else problems.append(r.url))
        page.goto(f"{base}/console")

        _sign_in(page, "wrong-key-0123456789abcdef")
        expect(page.locator("#sign-in-error")).to_contain_text("Sign-in failed")
        expect(page.locator("#console")).to_be_hidden()
        page.screenshot(path=str(shots / "sign-in.png"))
        refused = (
            f"401 {base}/memory?limit=1"  # the wrong key's check, and the browser's note of it
        )
        assert problems[:1] == [refused] and all("401" in p for p in problems), problems
        problems.clear()

        _sign_in(page, ALICE_KEY)
        expect(page.locator("#console")).to_be_visible()
        assert page.evaluate("sessionStorage.getItem('engram.console.key')") == ALICE_KEY

        page.fill("#query", QUERY)
        page.click("#search-form button[type=submit]")
        results = page.locator("#search-results article.memory")
        expect(results.first).to_be_visible()
        texts = results.all_inner_texts()
        assert any("oolong tea" in t for t in texts)
        assert not any("Bob" in t for t in texts), "another user's memory on screen"
        tea_card = page.locator(f'#search-results article[data-id="{ids["tea"]}"]')
        components = tea_card.locator("table.components th").all_inner_texts()
        assert {"match", "vector", "keyword"} <= set(components)
        same = api.post("/recall", headers=auth(ALICE_KEY), json={"query": QUERY, "limit": 10})
        score = next(r for r in same.json()["results"] if r["id"] == ids["tea"])["final_score"]
        expect(tea_card.locator(".score strong")).to_have_text(f"score {score:.4f}")
        hostile = page.locator(f'#search-results article[data-id="{ids["hostile"]}"] .content')
        expect(hostile).to_have_text(f"Tea notes {HOSTILE}")
        assert page.evaluate("window.__pwned") is None
        assert page.locator("#search-results img, #search-results script").count() == 0
        page.screenshot(path=str(shots / "search.png"))

        tea_card.locator("button.open").click()
        history = page.locator("#detail #history")
        expect(history).to_contain_text("Revisions (1)")
        expect(history.locator(".revisions .content")).to_have_text(
            "Alice prefers green tea in the morning"
        )
        expect(history.locator(".events")).to_contain_text("update")
        history.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "history.png"))

        page.click("#detail #pin")
        expect(page.locator("#status")).to_have_text("Pinned")
        expect(page.locator("#detail #pin")).to_have_text("Unpin")
        pinned = api.get(f"/memory/{ids['tea']}", headers=auth(ALICE_KEY)).json()["memory"]
        assert pinned["pinned"] is True

        page.click("#detail #delete")
        page.click("#detail #confirm-delete")
        expect(page.locator("#detail h2")).to_have_text("Deleted memory")
        expect(tea_card).to_have_count(0)
        gone = api.get(f"/memory/{ids['tea']}", headers=auth(ALICE_KEY))
        assert gone.status_code == 404
        assert api.get(f"/memory/{ids['tea']}/history", headers=auth(ALICE_KEY)).json()["deleted"]

        page.click("[role=tab][data-tab=browse]")
        listed = page.locator("#browse-results article.memory")
        expect(listed).to_have_count(2)
        shown = {listed.nth(i).get_attribute("data-id") for i in range(2)}
        assert shown == {ids["berlin"], ids["hostile"]}
        page.screenshot(path=str(shots / "browse.png"))
        assert problems == []

        # A kept key that stops working sends the user back to sign in.
        page.evaluate("sessionStorage.setItem('engram.console.key', 'revoked-0123456789abcdef')")
        page.click("[role=tab][data-tab=search]")
        page.click("#search-form button[type=submit]")
        expect(page.locator("#sign-in-error")).to_have_text("The key was refused; sign in again.")
        expect(page.locator("#console")).to_be_hidden()
        assert page.evaluate("sessionStorage.getItem('engram.console.key')") is None


def _enriched(api: httpx.Client, memory_id: str, timeout_s: float = 180.0) -> dict:
    """The memory once its enrichment job is done (spaCy's worker process starts first)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        memory = api.get(f"/memory/{memory_id}", headers=auth(ALICE_KEY)).json()["memory"]
        if memory["enrichment_status"] != "pending":
            assert memory["enrichment_status"] == "done", memory
            return memory
        time.sleep(0.5)
    raise AssertionError(f"{memory_id} was not enriched within {timeout_s} s")


def test_the_console_edits_archives_and_shows_entities_links_and_only_your_memories(
    browser: Browser, falkordb_url: str, tmp_path: Path
) -> None:
    shots = _shots(tmp_path)
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, workers=1)
    with serve(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as api:
        berlin = _store(api, ALICE_KEY, "Alice moved to Berlin in March", ["home"])
        flat = _store(api, ALICE_KEY, "Alice rents a flat in Kreuzberg", ["home"])
        hamburg = _store(api, ALICE_KEY, "Alice lives in Hamburg", ["home"])
        _store(api, BOB_KEY, "Bob lives in Berlin too", ["home"])
        for first, second, kind in (
            (berlin, flat, "RELATES_TO"),
            (hamburg, berlin, "INVALIDATED_BY"),
        ):
            linked = api.post(
                "/associate",
                headers=auth(ALICE_KEY),
                json={"memory1_id": first, "memory2_id": second, "type": kind},
            )
            assert linked.status_code in (200, 201), linked.text
        enriched = _enriched(api, berlin)
        assert "Berlin" in enriched["metadata"]["entities"].get("places", [])
        tags_before = enriched["tags"]

        page = browser.new_page(viewport={"width": 1200, "height": 760})
        page.goto(f"{base}/console")
        _sign_in(page, ALICE_KEY)
        page.click("[role=tab][data-tab=browse]")
        card = page.locator(f'#browse-results article[data-id="{berlin}"]')
        card.locator("button.open").click()
        detail = page.locator("#detail")
        expect(detail.locator(".entities")).to_contain_text("Berlin")
        expect(detail.locator(".linked")).to_contain_text(flat)
        expect(detail.locator(".chain")).to_contain_text(hamburg)  # what Berlin replaced
        expect(detail.locator(".chain")).not_to_contain_text(flat)
        detail.locator(".entities").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "entities-and-links.png"))

        page.fill("#edit-content", "Alice moved to Berlin in April")
        page.click("#edit-form button[type=submit]")
        expect(page.locator("#status")).to_contain_text("Saved")
        edited = api.get(f"/memory/{berlin}", headers=auth(ALICE_KEY)).json()["memory"]
        assert (edited["content"], edited["version"]) == ("Alice moved to Berlin in April", 2)
        assert edited["tags"] == tags_before  # untouched fields are not sent

        page.click("#detail #archive")
        expect(page.locator("#status")).to_have_text("Archived")
        archived = api.get(f"/memory/{berlin}", headers=auth(ALICE_KEY)).json()["memory"]
        assert archived["archived"] is True

        detail.locator(".entities button", has_text="Berlin").click()
        expect(page.locator("#entity-results h3")).to_contain_text("Berlin")
        expect(page.locator("#entity-results")).to_contain_text(berlin)

        page.click("#sign-out")
        _sign_in(page, BOB_KEY)
        page.click("[role=tab][data-tab=browse]")
        listed = page.locator("#browse-results article.memory")
        expect(listed).to_have_count(1)
        expect(listed).to_contain_text("Bob lives in Berlin too")
        page.click("[role=tab][data-tab=search]")
        page.fill("#query", "Alice Berlin flat")
        page.click("#search-form button[type=submit]")
        expect(page.locator("#status")).to_contain_text("result(s)")
        assert "Alice" not in page.locator("#search-results").inner_text()


def _remembered(api: httpx.Client, session_id: str, text: str, timeout_s: float = 180.0) -> dict:
    """POST /remember one user message; the job's result once it is done."""
    accepted = api.post(
        "/remember",
        headers=auth(ALICE_KEY),
        json={"session_id": session_id, "messages": [{"role": "user", "content": text}]},
    )
    assert accepted.status_code == 202, accepted.text
    job = accepted.json()["job_id"]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = api.get(f"/remember/jobs/{job}", headers=auth(ALICE_KEY)).json()
        if state["state"] in ("done", "failed"):
            assert state["state"] == "done", state
            return state["result"]
        time.sleep(0.5)
    raise AssertionError(f"/remember job {job} not done within {timeout_s} s")


def test_the_console_shows_a_facts_source_turn_and_the_fact_it_superseded(
    browser: Browser, falkordb_url: str, tmp_path: Path
) -> None:
    shots = _shots(tmp_path)
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, workers=1)
    with serve(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as api:
        lisbon = _remembered(api, "s1", "I moved to Lisbon last month.")["stored"][0]
        porto_job = _remembered(api, "s2", "I just moved to Porto.")
        porto = porto_job["stored"][0]
        assert porto_job["superseded"] == [{"old": lisbon, "new": porto}]

        page = browser.new_page(viewport={"width": 1200, "height": 760})
        page.goto(f"{base}/console")
        _sign_in(page, ALICE_KEY)
        page.fill("#query", "where have I moved to")
        page.check("#source-turns")
        page.click("#search-form button[type=submit]")
        fact = page.locator(f'#search-results article[data-id="{porto}"]')
        expect(fact.locator(".turns summary")).to_have_text("1 source turn(s)")
        fact.locator(".turns summary").click()
        expect(fact.locator(".turns li")).to_contain_text("I just moved to Porto.")
        expect(page.locator(f'#search-results article[data-id="{lisbon}"]')).to_have_count(0)
        fact.screenshot(path=str(shots / "source-turns.png"))

        fact.locator("button.open").click()
        chain = page.locator("#detail .chain")
        expect(chain).to_contain_text("User moved to Lisbon")
        chain.locator("button.link", has_text=lisbon).click()
        expect(page.locator("#detail .id")).to_have_text(lisbon)
        expect(page.locator("#detail .facts").last).to_contain_text("valid until")
