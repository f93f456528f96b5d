"""The site by keyboard and screen reader, in Debian's Chromium (an accessibility trial): a form sent back
with errors says so and takes the user to them, a skip link passes the header, a new token is in view."""

from __future__ import annotations

import pytest

from tests.pages.browser import clean, log_in, site_page
from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.browser

FOCUSED_JS = """() => { const a = document.activeElement;
  return {tag: a.tagName, name: a.getAttribute("name"), role: a.getAttribute("role"), id: a.id,
          text: a.textContent.trim().slice(0, 200), invalid: a.getAttribute("aria-invalid")}; }"""


def test_form_errors_take_the_focus_and_are_announced(transactional_db, live_server, chromium, make_user):
    make_user("keyboarder")
    with site_page(chromium, live_server.url, width=390, height=844, phone=True) as page:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", "keyboarder")
        page.fill("input[name=password]", "wrong")
        page.click("main button[type=submit]")
        page.wait_for_load_state("load")
        focused = page.evaluate(FOCUSED_JS)  # the wrong password, not the username field, has the focus
        assert focused["tag"] == "UL" and focused["role"] == "alert" and "correct username" in focused["text"]
        page.goto(f"{live_server.url}/accounts/signup/")
        page.fill("input[name=username]", "newkeys")
        page.fill("input[name=password1]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD + "x")
        page.click("main button[type=submit]")
        page.wait_for_load_state("load")
        focused = page.evaluate(FOCUSED_JS)  # the field in error, far down a phone's screen: in view, focused
        assert focused == {**focused, "tag": "INPUT", "name": "password2", "invalid": "true"}
        assert page.evaluate("document.activeElement.getBoundingClientRect().bottom") <= 844
        clean(page)


def test_a_skip_link_passes_the_header_and_a_new_token_is_in_view(transactional_db, live_server, chromium, make_user):
    make_user("skipper")
    with site_page(chromium, live_server.url, width=390, height=844, phone=True) as page:
        log_in(page, live_server.url, "skipper")
        page.goto(f"{live_server.url}/accounts/profile/")
        page.keyboard.press("Tab")
        assert page.evaluate(FOCUSED_JS)["text"] == "Skip to the content"
        assert page.evaluate("document.activeElement.getBoundingClientRect().top") >= 0  # shown when focused
        page.keyboard.press("Enter")
        assert page.evaluate(FOCUSED_JS)["id"] == "content"
        page.fill("input[name=name]", "phone")
        page.fill("#token-form input[name=password]", PASSWORD)
        page.click("main form.panel button[type=submit]")
        page.wait_for_url(f"{live_server.url}/accounts/profile/#new-token")
        page.wait_for_load_state("load")
        assert page.evaluate(FOCUSED_JS)["id"] == "new-token"
        box = page.locator("#new-token").bounding_box()
        assert box is not None and 0 <= box["y"] < 844  # the one-time secret on screen, not 1,170 px down
        clean(page)
