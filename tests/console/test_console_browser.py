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
from falkordb import FalkorDB
from playwright.sync_api import Browser, Page, expect, sync_playwright

from app.main import create_app
from tests.conftest import ADMIN_KEY, AGENT_KEY, ALICE_KEY, BOB_KEY, auth, test_settings
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
        expect(page.locator("#tab-overview")).to_be_visible()  # where the console opens
        page.click("[role=tab][data-tab=search]")

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
        mention = page.locator(f'#entity-results li[data-id="{berlin}"]')
        expect(mention).to_have_text("Alice moved to Berlin in April")  # its text, not its id

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
        page.click("[role=tab][data-tab=search]")
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


# ---------------------------------------------------------------- the views of issue 43


def _watch(page: Page, base: str) -> list[str]:
    """Problems the page runs into: errors, refused calls, and any request off the origin."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on(
        "response",
        lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    page.on("request", lambda r: None if r.url.startswith(f"{base}/") else problems.append(r.url))
    return problems


def _tab(page: Page, name: str) -> None:
    page.click(f"[role=tab][data-tab={name}]")
    expect(page.locator(f"#tab-{name}")).to_be_visible()


def _api(api: httpx.Client, key: str, path: str, **params: object) -> dict:
    response = api.get(path, headers=auth(key), params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _seed_views(api: httpx.Client) -> dict[str, str]:
    """Alice's memories for every view: typed and tagged ones, an agent's, a link, a /remember
    session whose second message replaced the first's fact; and one of Bob's."""
    ids = {
        "berlin": _store(api, ALICE_KEY, "Alice moved to Berlin in March", ["home"]),
        "tea": _store(api, ALICE_KEY, "Alice prefers oolong tea", ["drinks"]),
        "bike": _store(api, ALICE_KEY, "Alice cycles to work in Berlin", ["travel"]),
        "bob": _store(api, BOB_KEY, "Bob collects stamps from Bolivia", ["hobby"]),
    }
    agent = api.post(
        "/memory",
        headers=auth(AGENT_KEY),
        json={"content": "Alice asks the chat agent for short answers", "tags": ["style"]},
    )
    assert agent.status_code == 201, agent.text
    ids["agent"] = agent.json()["memory_id"]
    linked = api.post(
        "/associate",
        headers=auth(ALICE_KEY),
        json={"memory1_id": ids["bike"], "memory2_id": ids["berlin"], "type": "RELATES_TO"},
    )
    assert linked.status_code in (200, 201), linked.text
    ids["lisbon"] = _remembered(api, "trip", "I moved to Lisbon last month.")["stored"][0]
    ids["porto"] = _remembered(api, "trip", "I just moved to Porto.")["stored"][0]
    _enriched(api, ids["berlin"])
    return ids


def test_the_console_views_overview_manage_timeline_conversations_and_graph(
    browser: Browser, falkordb_url: str, tmp_path: Path
) -> None:
    shots = _shots(tmp_path)
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, workers=1)
    with serve(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as api:
        ids = _seed_views(api)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        problems = _watch(page, base)
        page.goto(f"{base}/console")
        _sign_in(page, ALICE_KEY)

        # Overview: the figures are the API's, the chart has a bar per day.
        stats = _api(api, ALICE_KEY, "/me/stats", days=30)
        overview = page.locator("#overview")
        expect(overview.locator('[data-figure="total"] .figure')).to_have_text(str(stats["total"]))
        expect(overview.locator("figure.chart rect.bar")).to_have_count(30)
        today = overview.locator("figure.chart rect.bar").last
        assert today.get_attribute("data-count") == str(stats["per_day"][-1]["count"])
        expect(overview.locator('[data-facet="tag"]')).to_contain_text("drinks")
        expect(overview.locator('[data-facet="layer"]')).to_contain_text("transcript")
        expect(overview.locator("#jobs")).to_contain_text("queued")
        page.screenshot(path=str(shots / "overview.png"), full_page=True)

        # Browse: a total, a text filter; an edit shows in the list at once.
        _tab(page, "browse")
        listed = _api(api, ALICE_KEY, "/memory", include_total="true")["total"]
        expect(page.locator("#browse-total")).to_have_text(f"{listed} memories match")
        page.fill("#browse-text", "oolong")
        page.click("#browse-form button[type=submit]")
        expect(page.locator("#browse-total")).to_have_text("1 memory match")
        page.locator(f'#browse-results article[data-id="{ids["tea"]}"] button.open').click()
        page.fill("#edit-content", "Alice prefers sencha tea")
        page.click("#edit-form button[type=submit]")
        expect(page.locator("#status")).to_contain_text("Saved")
        expect(
            page.locator(f'#browse-results article[data-id="{ids["tea"]}"] .content')
        ).to_have_text("Alice prefers sencha tea")

        # Create a memory from the form.
        page.click("#create summary")
        page.fill("#create-content", "Alice keeps a sourdough starter")
        page.fill("#create-tags", "kitchen, bread")
        page.check("#create-pinned")
        page.click("#create-form button[type=submit]")
        expect(page.locator("#status")).to_contain_text("Created")
        made = _api(api, ALICE_KEY, "/memory", text="sourdough")["memories"]
        assert len(made) == 1 and made[0]["pinned"] and {"kitchen", "bread"} <= set(made[0]["tags"])
        expect(page.locator("#detail .content.big")).to_have_text("Alice keeps a sourdough starter")

        # Bulk: two by hand, pinned after a confirmation that says how many.
        page.fill("#browse-text", "berlin")
        page.click("#browse-form button[type=submit]")
        expect(page.locator("#browse-total")).to_have_text("2 memories match")
        for key in ("berlin", "bike"):
            page.locator(f'#browse-results article[data-id="{ids[key]}"] input.select').check()
        expect(page.locator("#selected-count")).to_have_text("2 selected")
        page.fill("#bulk-tag", "germany")
        page.click(".bulk-action[data-action=tag]")
        expect(page.locator("#bulk-question")).to_have_text("Tag “germany” on 2 memories?")
        page.screenshot(path=str(shots / "bulk.png"))
        page.click("#bulk-yes")
        expect(page.locator("#status")).to_have_text("Tagged “germany” on 2 memories")
        for key in ("berlin", "bike"):
            memory = _api(api, ALICE_KEY, f"/memory/{ids[key]}")["memory"]
            assert "germany" in memory["tags"], memory["tags"]

        # Every match selected, pinned; then archived; the cancel changes nothing.
        page.click("#select-matching")
        expect(page.locator("#selected-count")).to_have_text("2 selected")
        page.click(".bulk-action[data-action=archive]")
        expect(page.locator("#bulk-question")).to_have_text("Archive 2 memories?")
        page.click("#bulk-no")
        assert not _api(api, ALICE_KEY, f"/memory/{ids['bike']}")["memory"]["archived"]
        page.click(".bulk-action[data-action=archive]")
        page.click("#bulk-yes")
        expect(page.locator("#status")).to_have_text("Archived 2 memories")
        expect(page.locator("#browse-total")).to_have_text("0 memories match")
        for key in ("berlin", "bike"):
            assert _api(api, ALICE_KEY, f"/memory/{ids[key]}")["memory"]["archived"]
        page.select_option("#browse-state", "archived")
        page.click("#browse-form button[type=submit]")
        expect(page.locator("#browse-total")).to_have_text("2 memories match")
        page.check("#select-page")
        page.click(".bulk-action[data-action=restore]")
        page.click("#bulk-yes")
        expect(page.locator("#status")).to_have_text("Restored 2 memories")
        assert not _api(api, ALICE_KEY, f"/memory/{ids['berlin']}")["memory"]["archived"]
        page.select_option("#browse-state", "current")
        page.click("#browse-form button[type=submit]")
        expect(page.locator("#browse-total")).to_have_text("2 memories match")
        page.locator(f'#browse-results article[data-id="{ids["berlin"]}"] input.select').check()
        page.click(".bulk-action[data-action=pin]")
        expect(page.locator("#bulk-question")).to_have_text("Pin 1 memory?")
        page.click("#bulk-yes")
        expect(page.locator("#status")).to_have_text("Pinned 1 memory")
        assert _api(api, ALICE_KEY, f"/memory/{ids['berlin']}")["memory"]["pinned"]

        # Delete one by hand, after saying how many.
        page.fill("#browse-text", "sourdough")
        page.click("#browse-form button[type=submit]")
        expect(page.locator("#browse-total")).to_have_text("1 memory match")
        page.check("#select-page")
        page.click(".bulk-action[data-action=delete]")
        expect(page.locator("#bulk-question")).to_have_text("Delete 1 memory?")
        page.click("#bulk-yes")
        expect(page.locator("#status")).to_have_text("Deleted 1 memory")
        assert api.get(f"/memory/{made[0]['id']}", headers=auth(ALICE_KEY)).status_code == 404

        # Export every memory, and import a file of two.
        page.click("#transfer summary")
        with page.expect_download() as downloading:
            page.click("#export")
        exported = Path(downloading.value.path()).read_text().splitlines()
        mine = api.get("/me/export", headers=auth(ALICE_KEY)).text.splitlines()
        assert len(exported) == len(mine) and '"Alice prefers sencha tea"' in "".join(exported)
        before = _api(api, ALICE_KEY, "/me/stats")["total"]
        upload = tmp_path / "import.jsonl"
        upload.write_text(
            '{"content": "Alice learned to juggle", "tags": ["hobby"]}\n'
            '{"memory": {"content": "Alice reads Japanese novels", "type": "Preference"}}\n'
        )
        page.set_input_files("#import-file", str(upload))
        page.click("#import-form button[type=submit]")
        expect(page.locator("#import-result")).to_have_text("Imported 2 memories from import.jsonl")
        assert _api(api, ALICE_KEY, "/me/stats")["total"] == before + 2
        novels = _api(api, ALICE_KEY, "/memory", text="japanese novels")["memories"]
        assert [m["type"] for m in novels] == ["Preference"]

        # Timeline: the replaced fact is linked to the one that replaced it.
        _tab(page, "timeline")
        lisbon = page.locator(f'#timeline li[data-id="{ids["lisbon"]}"]')
        expect(lisbon).to_have_class("moment ended")
        expect(lisbon.locator("button.jump")).to_contain_text("replaced by →")
        lisbon.locator("button.jump").click()
        expect(page.locator("#detail .id")).to_have_text(ids["porto"])
        porto = page.locator(f'#timeline li[data-id="{ids["porto"]}"]')
        expect(porto.locator("button.jump")).to_contain_text("← replaces")
        page.fill("#timeline-type", "Preference")
        page.click("#timeline-form button[type=submit]")
        preferences = _api(api, ALICE_KEY, "/memory", type="Preference", state="all")["memories"]
        expected = [m for m in preferences if m["layer"] != "transcript"]
        assert {"Alice prefers sencha tea", "Alice reads Japanese novels"} <= {
            m["content"] for m in expected
        }
        expect(page.locator("#timeline li.moment")).to_have_count(len(expected))
        page.fill("#timeline-type", "")
        page.click("#timeline-form button[type=submit]")
        expect(lisbon).to_be_visible()
        page.locator("#detail #close-detail").click()
        page.screenshot(path=str(shots / "timeline.png"), full_page=True)

        # Conversations: the session's turns in order, each with the facts drawn from it.
        _tab(page, "conversations")
        turns = page.locator("#session li.turn")
        expect(turns).to_have_count(2)
        expect(turns.nth(0).locator(".content")).to_have_text("I moved to Lisbon last month.")
        expect(turns.nth(1).locator(".facts-drawn")).to_contain_text("Porto")
        expect(turns.nth(0).locator(".facts-drawn")).to_contain_text("Lisbon")
        expect(page.locator("#profile")).to_contain_text("Porto")
        expect(page.locator("#core")).to_contain_text("Alice moved to Berlin in March")
        page.screenshot(path=str(shots / "conversation.png"), full_page=True)

        # Graph: drawn on a canvas; the node list opens a memory or an entity.
        _tab(page, "graph")
        expect(page.locator("#graph canvas").first).to_be_visible()
        page.click("#graph-fit")
        page.screenshot(path=str(shots / "graph.png"))
        nodes = page.locator("#graph-nodes li")
        drawn = _api(api, ALICE_KEY, "/me/graph", limit=100)
        expect(nodes).to_have_count(len(drawn["nodes"]))
        assert any(n["kind"] == "entity" and n["label"] == "Berlin" for n in drawn["nodes"])
        # A click on a memory where it is drawn opens it.
        at = page.evaluate(
            f"document.getElementById('graph').drawing.$id('{ids['porto']}').renderedPosition()"
        )
        page.locator("#graph").click(position={"x": at["x"], "y": at["y"]})
        expect(page.locator("#detail .id")).to_have_text(ids["porto"])
        page.locator("#detail #close-detail").click()
        page.click("#tab-graph .graph-list summary")
        page.locator(f'#graph-nodes li[data-id="{ids["bike"]}"] button').click()
        expect(page.locator("#detail .id")).to_have_text(ids["bike"])
        page.locator("#detail #close-detail").click()

        # Keyboard: the arrow keys move along the tabs.
        page.focus("[role=tab][data-tab=graph]")
        page.keyboard.press("ArrowRight")
        expect(page.locator("#tab-entities")).to_be_visible()
        assert page.evaluate("document.activeElement.dataset.tab") == "entities"

        # 380 px: one column, the memory above the list, nothing wider than the screen.
        page.set_viewport_size({"width": 380, "height": 800})
        _tab(page, "browse")
        page.fill("#browse-text", "")
        page.click("#browse-form button[type=submit]")
        page.locator("#browse-results article.memory button.open").first.click()
        expect(page.locator("#detail")).to_be_visible()
        panel = page.locator("#detail").bounding_box()
        first = page.locator("#browse-results article.memory").first.bounding_box()
        assert panel and first and panel["y"] + panel["height"] <= first["y"], (panel, first)
        page.screenshot(path=str(shots / "narrow.png"), full_page=True)
        wide = page.evaluate(
            "[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect()"
            ".right > 381 && e.offsetParent).map((e) => e.tagName + '#' + e.id + '.' +"
            " e.className).slice(0, 8)"
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 380, wide
        for view in ("overview", "timeline", "conversations", "graph", "search", "entities"):
            _tab(page, view)
            assert page.evaluate("document.documentElement.scrollWidth") <= 380, view
        assert problems == [], problems


def test_bob_sees_nothing_of_alices_in_any_view(
    browser: Browser, falkordb_url: str, tmp_path: Path
) -> None:
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, workers=1)
    with serve(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as api:
        _seed_views(api)
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        problems = _watch(page, base)
        page.goto(f"{base}/console")
        # Bob signs in after Alice in the same tab: nothing of hers stays, her selection neither.
        _sign_in(page, ALICE_KEY)
        _tab(page, "browse")
        # her list first: with no row yet, "select the page" has nothing to select and unchecks
        expect(page.locator("#browse-results input.select")).not_to_have_count(0)
        page.check("#select-page")
        expect(page.locator("#selected-count")).not_to_have_text("0 selected")
        page.click("#sign-out")
        _sign_in(page, BOB_KEY)
        expect(page.locator('#overview [data-figure="total"] .figure')).to_have_text("1")
        expect(page.locator("#selected-count")).to_have_text("0 selected")
        seen = {"overview": page.locator("#overview").inner_text()}
        _tab(page, "browse")
        expect(page.locator("#browse-total")).to_have_text("1 memory match")
        seen["browse"] = page.locator("#tab-browse").inner_text()
        _tab(page, "timeline")
        expect(page.locator("#timeline li.moment")).to_have_count(1)
        seen["timeline"] = page.locator("#timeline").inner_text()
        _tab(page, "conversations")
        expect(page.locator("#session-list")).to_contain_text("No conversations yet")
        seen["conversations"] = page.locator("#tab-conversations").inner_text()
        _tab(page, "graph")
        expect(page.locator("#graph-nodes li")).not_to_have_count(0)
        seen["graph"] = page.locator("#graph-nodes").inner_text()
        _tab(page, "entities")
        page.click("#entities-form button[type=submit]")
        expect(page.locator("#status")).to_contain_text("entities")
        seen["entities"] = page.locator("#entity-results").inner_text()
        for view, text in seen.items():
            for alices in ("Alice", "Berlin", "Lisbon", "Porto", "oolong", "trip"):
                assert alices not in text, (view, alices, text)
        assert "Bob collects stamps" in seen["browse"]
        assert problems == [], problems


def test_the_operator_lists_users_and_looks_into_one_read_only(
    browser: Browser, falkordb_url: str, tmp_path: Path
) -> None:
    shots = _shots(tmp_path)
    settings = test_settings(tmp_path, falkordb_url=falkordb_url, enrichment_enabled=False)
    with serve(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as api:
        tea = _store(api, ALICE_KEY, "Alice prefers oolong tea", ["drinks"])
        _store(api, ALICE_KEY, "Alice moved to Berlin in March", ["home"])
        _store(api, BOB_KEY, "Bob collects stamps", ["hobby"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        problems = _watch(page, base)
        page.goto(f"{base}/console")
        _sign_in(page, ADMIN_KEY)
        expect(page.locator("#whoami")).to_have_text("signed in as the operator (read-only)")
        expect(page.locator("[role=tab][data-tab=browse]")).to_be_hidden()
        expect(page.locator("#disk")).to_contain_text("qdrant on disk")
        rows = page.locator("#users tbody tr")
        expect(rows).to_have_count(2)
        alice = page.locator('#users tr[data-user="alice"]')
        expect(alice.locator("td").first).to_have_text("2")
        expect(alice.locator(".keys")).to_contain_text("configured")
        alice.locator("button").click()
        view = page.locator("#user-view")
        expect(view.locator('[data-figure="total"] .figure')).to_have_text("2")
        expect(page.locator("#user-total")).to_have_text("2 memories")
        expect(view).not_to_contain_text("Bob")
        view.locator(f'article[data-id="{tea}"] button.open').click()
        expect(page.locator("#detail h2")).to_have_text("Memory of alice (read-only)")
        expect(page.locator("#detail button")).to_have_count(1)  # Close: nothing to change
        page.screenshot(path=str(shots / "operator.png"), full_page=True)
        looks = (
            FalkorDB.from_url(falkordb_url)
            .select_graph(settings.falkordb_graph)
            .ro_query(
                "MATCH (e:AuditEvent {action: 'admin_view'}) RETURN e.what, e.user_id ORDER BY e.at"
            )
            .result_set
        )
        assert [tuple(row) for row in looks] == [
            ("users", None),  # the sign-in's check
            ("users", None),
            ("stats", "alice"),
            ("memories", "alice"),
        ]
        # The sign-in's one probe: the admin key is refused where a user's key lists memories.
        assert problems[:1] == [f"403 {base}/memory?limit=1"], problems
        assert all("403" in p for p in problems), problems
