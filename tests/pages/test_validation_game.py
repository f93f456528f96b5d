"""The validation game on the version's page (issue 27), in Debian's Chromium: its owner watches it in
the viewer (their seat marked "you", the keys and the board working); another user sees no viewer."""

from __future__ import annotations

import pytest

from tests.bots.test_validation_replay import validate
from tests.pages.browser import clean, log_in, site_page
from tests.viewer.conftest import at_rest

pytestmark = pytest.mark.browser


def test_the_owner_watches_the_validation_game_in_the_viewer(transactional_db, live_server, chromium, make_user,
                                                             monkeypatch, tmp_path):
    from armada.botspec import starter_file

    version = validate(make_user, monkeypatch, tmp_path, starter_file("greedy", "galaxy").read_text())
    make_user("other")
    url = f"{live_server.url}/bots/{version.bot_id}/versions/{version.number}/"
    with site_page(chromium, live_server.url) as page:
        log_in(page, live_server.url, "owner")
        page.goto(url)
        page.wait_for_selector(".armada-viewer[data-state=ready], .armada-viewer[data-state=error]")
        root = page.locator("#validation-game ~ .validation-replay .armada-viewer")
        assert root.get_attribute("data-state") == "ready" and root.get_attribute("data-game") == "galaxy"
        assert page.locator(".av-seat-1 .av-name").text_content() == "watched"
        assert page.locator(".av-seat-1 .av-you").count() == 1 and page.locator(".av-seat-2 .av-you").count() == 0
        assert page.locator(".av-seat-2 .av-name").text_content() == "random starter"
        assert page.locator(".av-counter").text_content() == "turn 0 / 8"
        page.locator(".av-board").click(position={"x": 1, "y": 1})  # the viewer's keys (else End scrolls the page)
        page.keyboard.press("End")
        at_rest(page)
        assert root.get_attribute("data-turn") == "8" and page.locator(".av-planet").count() == 16
        page.locator("main h1").click()  # focuses <main> (the skip link's target): the arrows still step
        assert page.evaluate("document.activeElement.id") == "content"
        page.keyboard.press("ArrowLeft")
        at_rest(page)
        assert root.get_attribute("data-turn") == "7"
        page.set_viewport_size({"width": 390, "height": 800})  # a phone: the page still fits its width
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        clean(page)
    with site_page(chromium, live_server.url) as page:
        log_in(page, live_server.url, "other")
        page.goto(url)
        assert page.locator("#validation-game").count() == 0 and page.locator("[data-armada-src]").count() == 0
        assert page.locator("#status").text_content() == "valid"
        clean(page)
