"""The Django admin and DRF's browsable API work under the site's Content-Security-Policy: no blocked
script or style."""

from __future__ import annotations

import pytest

from tests.pages.browser import clean, site_page

pytestmark = pytest.mark.browser


def test_admin_pages_run_under_the_csp(transactional_db, live_server, chromium, arena, make_user):
    make_user("root", is_staff=True, is_superuser=True)
    bot = arena.alpha.bot_id
    with site_page(chromium, live_server.url) as page:
        page.goto(f"{live_server.url}/admin/login/")
        page.fill("input[name=username]", "root")
        page.fill("input[name=password]", "a-long-test-password-42")
        page.click("input[type=submit]")
        page.wait_for_url(f"{live_server.url}/admin/")
        for path in ["/admin/", "/admin/bots/bot/", f"/admin/bots/bot/{bot}/change/", "/admin/bots/botversion/",
                     "/admin/auth/user/", "/admin/matches/match/"]:
            page.goto(live_server.url + path)
            page.wait_for_load_state("load")
            assert page.locator("#content").is_visible()
            clean(page)


def test_the_browsable_api_runs_under_the_csp(transactional_db, live_server, chromium, arena, make_user):
    """DRF's inline <style> (Pygments) and its buttons' style attributes were refused: console errors."""
    from tests.pages.browser import log_in

    make_user("reader")
    bot = arena.alpha.bot_id
    with site_page(chromium, live_server.url) as page:
        log_in(page, live_server.url, "reader")
        for path in ["/api/", "/api/matches/", "/api/bots/", f"/api/bots/{bot}/", "/api/ladder/galaxy/"]:
            answer = page.goto(live_server.url + path)
            assert answer.status == 200 and "script-src 'self'" in answer.headers["content-security-policy"]
            page.wait_for_load_state("load")
            assert page.locator(".response-info").is_visible()
            clean(page)
            if path == "/api/bots/":  # django-filter's button, with its style attribute
                assert page.locator("button[data-target='#filtersModal']").count() == 1
