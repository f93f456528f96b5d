"""The pages in Debian's headless Chromium against a live server: every page without a
JavaScript error or injected script, the match page's viewer played, stepped, scrubbed and
fogged, a mid-game screenshot that is not blank (the layout at 390 and 1280 px: test_layout.py)."""

from __future__ import annotations

import pytest

from tests.pages.browser import clean, log_in, site_page
from tests.viewer.conftest import at_rest, save_screenshot
from tests.viewer.helpers import pixel_stats

pytestmark = pytest.mark.browser


def urls(arena) -> list[str]:
    a, b = arena.race_a.bot_id, arena.race_b.bot_id
    return ["/", "/ladder/galaxy/", "/ladder/galaxy/?q=alp", "/ladder/mothership/", f"/ladder/mothership/{a}/",
            f"/ladder/mothership/{a}/{b}/", f"/matches/{arena.match.pk}/", f"/bots/{arena.alpha.bot_id}/",
            f"/bots/{arena.alpha.bot_id}/versions/1/", f"/bots/{arena.race_a.bot_id}/", "/users/alice/",
            "/matches/", f"/matches/?bot={arena.alpha.bot_id}&result=win",
            "/my/bots/", "/sdk/", "/docs/", "/docs/galaxy/", "/docs/mothership/", "/docs/protocol/",
            "/no/such/page/"]


def viewer_ready(page) -> None:
    page.wait_for_selector(".armada-viewer[data-state=ready], .armada-viewer[data-state=error]")
    assert page.locator(".armada-viewer").get_attribute("data-state") == "ready"


def test_every_page_runs_no_error_and_no_injected_script(transactional_db, live_server, chromium, arena):
    with site_page(chromium, live_server.url) as page:
        log_in(page, live_server.url, "alice")
        for url in urls(arena):
            page.goto(live_server.url + url)
            page.wait_for_load_state("load")
            if "data-armada-src" in page.content():
                viewer_ready(page)
            if url == "/no/such/page/":  # Chromium logs the document's own 404 status
                assert page.watch.errors == ["Failed to load resource: the server responded with a status of 404 "
                                             "(Not Found)"]
                page.watch.errors.clear()
            clean(page)
        page.goto(f"{live_server.url}/users/alice/")
        assert page.locator("#display-name").text_content().startswith("<script>")  # shown as text


def test_match_page_viewer_plays_steps_scrubs_and_fogs(transactional_db, live_server, chromium, arena):
    with site_page(chromium, live_server.url) as page:
        log_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/matches/{arena.match.pk}/")
        viewer_ready(page)
        root = page.locator(".armada-viewer")
        assert page.locator("#log-seat-1 .log-line").count() > 10
        page.locator(".av-speed").select_option("8")
        page.locator(".av-play").click()
        page.wait_for_function("() => Number(document.querySelector('.armada-viewer').dataset.index) >= 3")
        page.locator(".av-play").click()
        at_rest(page)
        index = int(root.get_attribute("data-index"))
        page.get_by_role("button", name="step forward (right arrow)").click()
        at_rest(page)
        assert root.get_attribute("data-index") == str(index + 1)
        page.get_by_role("button", name="step back (left arrow)").click()
        at_rest(page)
        assert root.get_attribute("data-index") == str(index)
        last = int(page.locator(".av-scrub").get_attribute("max"))
        page.locator(".av-scrub").fill(str(last // 2))
        at_rest(page)
        assert root.get_attribute("data-index") == str(last // 2)
        png = root.screenshot()
        stats = pixel_stats(page, png)
        assert stats["colours"] > 200 and stats["background"] < 0.8 * stats["pixels"]
        assert stats["seat1"] > 300 and stats["seat2"] > 300
        save_screenshot(page.screenshot(full_page=False), "site-match.png")
        hidden_before = page.locator(".av-fleet").count()
        page.locator(".av-fog").select_option("1")
        at_rest(page)
        assert all(f.get_attribute("data-owner") == "1" for f in page.locator(".av-fleet").all())
        assert page.locator(".av-fleet").count() <= hidden_before
        page.locator(".av-fog").select_option("0")
        clean(page)


#: The elements past the page's right edge (the layout test's probe).
WIDE = """() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
  .slice(0, 6).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""


def test_the_match_browser_filters_pages_and_opens_the_viewer(transactional_db, live_server, chromium, arena):
    """Filter with the form, page to older matches and back, open a match's viewer; at 390 px too."""
    from armada_web.matches.services import create_match

    for _ in range(55):  # more than a page of matches of alpha against beta
        create_match(game="galaxy", first=arena.alpha, second=arena.beta)
    for width in (1280, 390):
        with site_page(chromium, live_server.url, width=width, height=844) as page:
            page.goto(f"{live_server.url}/matches/")
            page.fill("#match-filters input[name=bot]", "ALPHA")  # a name, any case
            page.select_option("#match-filters select[name=game]", "galaxy")
            page.click("#match-filters button[type=submit]")
            page.wait_for_load_state("load")
            rows = page.locator("#match-list tbody tr")
            assert rows.count() == 50
            assert page.evaluate("document.documentElement.scrollWidth") <= width, page.evaluate(WIDE)
            page.click("#match-pager a[rel=next]")
            page.wait_for_load_state("load")
            assert page.locator("#match-list tbody tr").count() == 6  # 56 matches of alpha
            page.click("#match-pager a[rel=prev]")
            page.wait_for_load_state("load")
            assert page.locator("#match-list tbody tr").count() == 50
            page.goto(f"{live_server.url}/matches/?bot={arena.alpha.bot_id}&status=finished")
            page.click("#match-list a.watch")
            page.wait_for_load_state("load")
            viewer_ready(page)
            assert page.url.split("#")[0].endswith(f"/matches/{arena.match.pk}/")  # (#t=N: the viewer's step)
            clean(page)
