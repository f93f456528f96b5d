"""Every page on a phone (375 px, twice as dense, touch) and at 1280 px in Debian's Chromium: no console
error, no horizontal scroll, no word broken inside (each word's text against its rendered line boxes), no
clipped column, no wrapped badge, form controls styled like the rest; the page's language, a label for every
control, alt text, headings in order, and Tab reaching visible, outlined links and controls; the Galaxy
rules' numbered lists are lists; on the match page the viewer's fleet labels do not overlap and the owner's
log follows the viewer."""

from __future__ import annotations

import pytest

from tests.pages.browser import clean, log_in, site_page
from tests.pages.layout import A11Y_JS, BROKEN_WORDS_JS, CLIPPED_JS, CONTROLS_JS, FOCUSED_JS, WRAPPED_BADGES_JS
from tests.viewer.conftest import at_rest
from tests.viewer.helpers import LABEL_OVERLAPS_JS

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WIDTHS = (375, 1280)
PHONE = 640  # narrower is a phone: 812 px high, device scale 2, touch
#: Tab presses per page: past the header's links, into the page's own links and controls.
TABS = 24


def pages(arena) -> list[str]:
    a, b = arena.race_a.bot_id, arena.race_b.bot_id
    return ["/", "/matches/", f"/matches/?bot={arena.alpha.bot_id}&result=win", "/ladder/galaxy/",
            "/ladder/galaxy/?q=alp", "/ladder/mothership/", f"/ladder/mothership/{a}/",
            f"/ladder/mothership/{a}/{b}/", f"/matches/{arena.match.pk}/", f"/bots/{arena.alpha.bot_id}/",
            f"/bots/{arena.beta.bot_id}/", f"/bots/{arena.alpha.bot_id}/versions/1/", f"/bots/{a}/",
            f"/bots/{b}/versions/1/", "/users/alice/", "/my/bots/", "/bots/new/", f"/bots/{arena.alpha.bot_id}/upload/",
            "/accounts/profile/", "/accounts/password/", "/sdk/", "/docs/", "/docs/galaxy/", "/docs/mothership/",
            "/docs/protocol/", "/docs/bot-library/", "/docs/cli/", "/docs/galaxy-schema/", "/docs/replay-format/",
            "/docs/bots-environment/", "/docs/decisions/", "/docs/viewer/", "/status/", "/events/", "/events/new/",
            "/seasons/", "/teams/new/", f"/teams/{arena.alpha.bot.team_id}/"]


SIGNED_OUT = ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/", "/api/docs/", "/no/such/page/",
              "/", "/ladder/galaxy/", "/status/", "/events/", "/seasons/"]
#: Swagger UI draws the API page's headings itself (its h1, then h3 per tag).
THEIR_HEADINGS = ("/api/docs/",)


def check(page, url: str, width: int) -> None:
    where = f"{url} at {width} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= width, (where, page.evaluate(CLIPPED_JS))
    assert page.evaluate(BROKEN_WORDS_JS) == [], where
    assert page.evaluate(CLIPPED_JS) == [], where
    assert page.evaluate(WRAPPED_BADGES_JS) == [], where
    for control in page.evaluate(CONTROLS_JS):  # the site's controls, not the browser's grey defaults
        assert control["background"] not in ("rgb(255, 255, 255)", "rgb(239, 239, 239)", "rgba(0, 0, 0, 0)") \
            or control["type"] == "file", (where, control)
        assert (control["radius"] != "0px" and "system-ui" in control["font"]) or control["tag"] == "input", \
            (where, control)
        assert control["width"] <= width - 16, (where, control)
    assert page.evaluate(A11Y_JS, url not in THEIR_HEADINGS) == [], where
    page.evaluate("window.scrollTo(0, 0)")
    for _ in range(TABS):
        page.keyboard.press("Tab")
        assert not page.evaluate(FOCUSED_JS), (where, page.evaluate(FOCUSED_JS))


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_without_broken_words(transactional_db, live_server, chromium, arena, width):
    phone = width < PHONE
    with site_page(chromium, live_server.url, width=width, height=812 if phone else 900, phone=phone) as page:
        for url in SIGNED_OUT:
            page.goto(live_server.url + url)
            page.wait_for_load_state("load")
            if url == "/no/such/page/":  # Chromium logs the document's own 404 status
                page.watch.errors[:] = [e for e in page.watch.errors if "status of 404" not in e]
            check(page, url, width)
        log_in(page, live_server.url, "alice")
        for url in pages(arena):
            page.goto(live_server.url + url)
            page.wait_for_load_state("load")
            if page.locator("[data-armada-src]").count():
                page.wait_for_selector(".armada-viewer[data-state=ready]")
            check(page, url, width)
        clean(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_galaxy_rules_lists_are_lists(transactional_db, live_server, chromium, width):
    with site_page(chromium, live_server.url, width=width) as page:
        page.goto(f"{live_server.url}/docs/galaxy/")
        items = page.locator("#doc-galaxy ol > li")
        assert items.count() >= 9
        first = items.first.bounding_box()
        assert first is not None and first["x"] > 20  # indented under its number, as a list is
        assert page.evaluate("getComputedStyle(document.querySelector('#doc-galaxy ol > li')).display") == "list-item"
        clean(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_match_page_labels_do_not_overlap_and_the_log_follows_the_viewer(transactional_db, live_server, chromium,
                                                                        arena, width):
    with site_page(chromium, live_server.url, width=width, height=900) as page:
        log_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/matches/{arena.match.pk}/")
        page.wait_for_selector(".armada-viewer[data-state=ready]")
        root = page.locator(".armada-viewer")
        last = int(page.locator(".av-scrub").get_attribute("max"))
        for index in sorted({1, 3, 5, last // 2, last - 1, last}):
            page.locator(".av-scrub").fill(str(index))
            at_rest(page)
            found = page.evaluate(LABEL_OVERLAPS_JS)
            assert found["bad"] == [], (index, found)
        page.locator(".av-scrub").fill("6")
        at_rest(page)
        turn = root.get_attribute("data-turn")
        log = page.locator("#log-seat-1")
        now = log.locator(".log-block.now")
        assert now.count() >= 1 and {b.get_attribute("data-turn") for b in now.all()} == {turn}
        box, block = log.locator(".log").bounding_box(), now.first.bounding_box()
        assert box is not None and block is not None
        assert box["y"] - 1 <= block["y"] <= box["y"] + box["height"]  # scrolled into the log's own view
        target = log.locator('.log-block[data-turn="9"] .log-request').first
        target.scroll_into_view_if_needed()
        target.click()
        at_rest(page)
        assert root.get_attribute("data-turn") == "9" and root.get_attribute("data-playing") == "false"
        assert {b.get_attribute("data-turn") for b in log.locator(".log-block.now").all()} == {"9"}
        assert page.evaluate("location.hash") == "#t=9"
        # one tab stop for the log, Up and Down between its requests, Enter shows one (an accessibility trial:
        # each request was a tab stop, 400 of them before the rest of the page)
        assert log.locator('.log-request[tabindex="0"]').count() == 1
        target.focus()
        page.keyboard.press("ArrowDown")
        following = page.evaluate("document.activeElement.closest('.log-block').dataset.turn")
        assert page.evaluate("document.activeElement.tabIndex") == 0 and int(following) >= 9
        assert log.locator('.log-request[tabindex="0"]').count() == 1
        page.keyboard.press("Home")
        page.keyboard.press("Enter")
        at_rest(page)
        first = log.locator(".log-block[data-turn] .log-request").first
        assert root.get_attribute("data-turn") == first.evaluate("r => r.closest('[data-turn]').dataset.turn")
        clean(page)


#: The longest username Django takes: one word, 150 characters.
LONG_NAME = "L" + "o" * 148 + "g"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_150_character_username_fits_every_page_that_names_it(transactional_db, live_server, chromium,
                                                                 make_user, valid_version, width):
    """The header's link to the signed-in user and every owner link cut the name short (the whole
    name in their title): a trial's 150-character name made pages 1413 px wide on a phone."""
    from armada_web.matches.models import Match
    from armada_web.teams import services as teams
    from tests.pages.data import ratings

    long = make_user(LONG_NAME)
    version = valid_version(long, "longbot")
    ratings(version, Match.objects.create(game="galaxy", seed=0, status="finished"), [2.0])
    team = teams.create_team(user=long, name="Crew")
    teams.join_team(user=make_user("alice"), team=team, key=team.join_key)
    phone = width < PHONE
    with site_page(chromium, live_server.url, width=width, height=812 if phone else 900, phone=phone) as page:
        log_in(page, live_server.url, LONG_NAME)
        for url in ["/", "/my/bots/", f"/users/{LONG_NAME}/", "/accounts/profile/", f"/bots/{version.bot_id}/",
                    "/ladder/galaxy/", f"/teams/{version.bot.team_id}/", f"/teams/{team.pk}/"]:
            page.goto(live_server.url + url)
            page.wait_for_load_state("load")
            check(page, url, width)
        assert page.get_attribute("header .who", "title") == LONG_NAME
    with site_page(chromium, live_server.url, width=width, height=812 if phone else 900, phone=phone) as page:
        log_in(page, live_server.url, "alice")  # a teammate sees the name in the members' table
        page.goto(f"{live_server.url}/teams/{team.pk}/")
        check(page, "the shared team as alice", width)
        clean(page)


#: Each shown rating chart's smallest label as rendered (font size times the drawing's scale), in px.
CHART_LABEL_PX_JS = """() => [...document.querySelectorAll('#rating-chart svg.chart')]
  .filter((svg) => getComputedStyle(svg).display !== 'none')
  .map((svg) => Math.min(...[...svg.querySelectorAll('.chart-label')].map((t) =>
    parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)))"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_rating_charts_labels_are_readable_on_a_phone_too(transactional_db, live_server, chromium, arena, width):
    """A trial: on a 390 px phone the rating chart's axis labels were about 5 px tall (the 600-unit
    drawing shrunk to the screen); the page shows a narrower drawing there."""
    phone = width < PHONE
    with site_page(chromium, live_server.url, width=width, height=812 if phone else 900, phone=phone) as page:
        page.goto(f"{live_server.url}/bots/{arena.alpha.bot_id}/")
        shown = page.evaluate(CHART_LABEL_PX_JS)
        assert len(shown) == 1 and shown[0] >= 9.5, shown  # one drawing shown, its labels about 11 px
        clean(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_status_page_fits_a_phone_with_real_worker_names(transactional_db, live_server, chromium, arena,
                                                             monkeypatch, width):
    """A trial at 390 px on a live `make up`: the estimates' third column ("A settled rating in about")
    was scrolled out of its box, and the worker "validation.8392@vm" broke as "validation.8392@v / m" in
    its half-width cell. The estimates stack as the other tables do; a worker's name takes the full row."""
    from armada_web.jobs import workers

    monkeypatch.setattr(workers, "live", lambda: [
        workers.Worker("validation.8392@vm", "vm", ("validation",)),
        workers.Worker("matches.8392@vm", "vm", ("challenges", "events", "finals", "matches"))])
    phone = width < PHONE
    with site_page(chromium, live_server.url, width=width, height=812 if phone else 900, phone=phone) as page:
        page.goto(f"{live_server.url}/status/")
        page.wait_for_load_state("load")
        check(page, "/status/", width)
        assert page.locator("#workers td", has_text="validation.8392@vm").count() == 1
        scrolled = page.evaluate("[...document.querySelectorAll('main .table-wrap')]"
                                 ".filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => w.firstElementChild.id)")
        assert scrolled == [], scrolled
        clean(page)
