"""The season, event and status pages: rendered with every user text escaped and no inline script
(the CSP forbids it), then in Debian's headless Chromium against a live server: no JavaScript
error, no injected script, the home page's countdown running from its static file, no horizontal
scroll at 390 px; an organiser creates an event with the form and a competitor enters a bot
through the invite link."""

from __future__ import annotations

import re
from dataclasses import dataclass
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from tests.pages.browser import PASSWORD, clean, log_in, site_page
from tests.pages.data import EVIL
from tests.support.seasons_helpers import queued, record_result
from tests.viewer.conftest import save_screenshot

pytestmark = pytest.mark.django_db


@dataclass
class Seasons:
    finished: Any
    finals: Any
    open: Any
    event: Any
    arena: Any


@pytest.fixture
def seasons(arena, make_user, valid_version, armada):
    from armada_web.events import services as events
    from armada_web.seasons import periodic, services

    armada(finals_cuts=(0.5,), finals_keep_min=2)
    carl = make_user("carl")
    valid_version(carl, "gamma")
    for slug, name in (("done", EVIL), ("playing", "Finals <b>now</b>")):
        call_command("season", "create", slug, "--game", "galaxy", "--name", name, stdout=StringIO())
        call_command("season", "close", slug, stdout=StringIO())
    call_command("season", "finish", "done", stdout=StringIO())
    call_command("season", "finals", "playing", "--stages", "2", "--games", "2", stdout=StringIO())
    periodic.tick(workers=2)
    record_result(queued("finals")[0], 1)
    opened = services.create_season(slug="spring", game="mothership", name="Spring")
    event = events.create_event(user=arena.alice, name=EVIL, game="galaxy", format="round_robin", games_per_pair=1)
    events.enter(user=arena.alice, event=event, bot_id=arena.alpha.bot_id)
    events.enter(user=arena.bob, event=event, bot_id=arena.beta.bot_id, invite=event.invite)
    from armada_web.seasons.models import Season

    return Seasons(Season.objects.get(slug="done"), Season.objects.get(slug="playing"), opened, event, arena)


def urls(s: Seasons) -> list[str]:
    return ["/", "/seasons/", "/seasons/done/", "/seasons/playing/", "/seasons/spring/", "/events/",
            "/events/new/", f"/events/{s.event.slug}/", "/status/", f"/bots/{s.arena.alpha.bot_id}/"]


def test_the_pages_escape_every_name_and_hold_no_inline_script(client, seasons):
    client.login(username="alice", password=PASSWORD)
    for url in urls(seasons):
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert "<script>window.__pwned" not in html and not re.search(r"<img[^>]*onerror", html), url
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), url
        # (inside a quoted attribute's value, escaped, a name's " onerror=" is text: the values go first)
        bare = re.sub(r'="[^"]*"', '=""', html)
        assert not re.search(r"<style|<[a-z][^>]*\s(style|on[a-z]+)=", bare), url
    home = client.get("/").content.decode()
    assert 'id="current-season"' in home and "data-countdown" in home and "pages/countdown.js" in home
    finals = client.get("/seasons/playing/").content.decode()
    assert 'id="finals-progress"' in finals and "1 of 5 matches played" in finals  # 3 entries, then 2
    done = client.get("/seasons/done/").content.decode()
    assert "Final standings" in done and "they never change" in done
    bad = client.get("/seasons/done/?page=abc")  # (a trial: ignored here, a 400 on every other list)
    assert bad.status_code == 400 and "page must be a whole number from 1 up" in bad.content.decode()
    assert client.get("/seasons/done/?page=99").status_code == 200  # past the last page: the last one
    event = client.get(f"/events/{seasons.event.slug}/").content.decode()
    assert 'id="invite"' in event and seasons.event.invite in event  # the owner sees the invite link


def test_a_private_events_page_is_a_404_without_the_invite(client, seasons, make_user, valid_version):
    make_user("dora")
    client.login(username="dora", password=PASSWORD)
    assert client.get(f"/events/{seasons.event.slug}/").status_code == 404
    client.logout()
    assert client.get(f"/events/{seasons.event.slug}/?invite={seasons.event.invite}").status_code == 200
    dora = make_user("dora2")
    from armada_web.bots.services import create_bot

    create_bot(user=dora, name="dora-bot", game="galaxy")
    client.login(username="dora2", password=PASSWORD)
    html = client.get(f"/events/{seasons.event.slug}/?invite={seasons.event.invite}").content.decode()
    assert 'id="needs-bot"' in html and 'id="enter"' not in html  # no version that plays: nothing to enter yet
    valid_version(dora, "dora-valid")
    html = client.get(f"/events/{seasons.event.slug}/?invite={seasons.event.invite}").content.decode()
    assert 'id="enter"' in html and 'id="invite"' not in html  # the entry form; the link is its owner's


@pytest.mark.browser
def test_the_new_pages_run_no_error_in_chromium(transactional_db, live_server, chromium, seasons):
    with site_page(chromium, live_server.url) as page:
        log_in(page, live_server.url, "alice")
        for url in urls(seasons):
            page.goto(live_server.url + url)
            page.wait_for_load_state("load")
            clean(page)
        page.goto(live_server.url + "/")
        countdown = page.locator("#current-season time[data-countdown]")
        page.wait_for_function("() => document.querySelector('#current-season time[data-countdown]')"
                               ".dataset.left !== undefined")
        assert re.fullmatch(r"(\d+d )?\d\d:\d\d:\d\d", countdown.text_content() or ""), countdown.text_content()
        first = countdown.text_content()
        page.wait_for_timeout(1200)
        assert countdown.text_content() != first  # ticking
        page.goto(f"{live_server.url}/seasons/done/")
        assert page.locator("#season-name").text_content() == EVIL  # shown as text
        save_screenshot(page.screenshot(full_page=True), "site-season.png")
        page.goto(f"{live_server.url}/seasons/playing/")
        save_screenshot(page.screenshot(full_page=True), "site-finals.png")
        clean(page)


@pytest.mark.browser
def test_an_organiser_creates_an_event_and_a_competitor_enters_with_the_invite(transactional_db, live_server,
                                                                               chromium, seasons):
    with site_page(chromium, live_server.url) as page:
        log_in(page, live_server.url, "bob")
        page.goto(f"{live_server.url}/events/new/")
        # the site's limits are the inputs' own: the browser says them before anything is sent
        assert page.get_attribute("input[name=games_per_pair]", "max") == "10"
        assert page.get_attribute("input[name=max_entrants]", "max") == "32"
        page.fill("input[name=name]", "Bob's <i>cup</i>")
        page.select_option("select[name=game]", "galaxy")
        page.select_option("select[name=format]", "round_robin")
        page.fill("input[name=games_per_pair]", "2")
        page.click("#new-event button[type=submit]")
        page.wait_for_selector("#invite")
        assert page.locator("#event-name").text_content() == "Bob's <i>cup</i>"
        link = page.locator("#invite code").text_content() or ""
        assert "?invite=" in link
        page.select_option("#enter select[name=bot]", str(seasons.arena.beta.bot_id))
        page.click("#enter button[type=submit]")
        page.wait_for_selector("#event-table td >> text=beta")
        save_screenshot(page.screenshot(full_page=True), "site-event.png")
        clean(page)
    with site_page(chromium, live_server.url) as page:
        log_in(page, live_server.url, "carl")
        path = link.split(live_server.url.split("//")[1], 1)[-1] if "//" in link else link
        page.goto(live_server.url + path[path.index("/events/"):])
        page.click("#enter button[type=submit]")
        page.wait_for_selector("#event-table td >> text=gamma")
        assert page.locator("#event-table tbody tr").count() == 2
        clean(page)


@pytest.mark.browser
def test_no_horizontal_scroll_at_390_px_on_the_new_pages(transactional_db, live_server, chromium, seasons):
    with site_page(chromium, live_server.url, width=390, height=844) as page:
        log_in(page, live_server.url, "alice")
        for url in urls(seasons):
            page.goto(live_server.url + url)
            page.wait_for_load_state("load")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (url, width)
        clean(page)



#: The median colour of a screenshot's leftmost and rightmost `width` pixel columns (decoded by the
#: browser: a PNG as base64 in, {left: [r, g, b], right: [r, g, b]} out).
EDGES_JS = """async ([png, width]) => {
  const bytes = Uint8Array.from(atob(png), c => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], {type: "image/png"}));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const g = canvas.getContext("2d");
  g.drawImage(bitmap, 0, 0);
  const median = x => {
    const data = g.getImageData(x, 0, width, bitmap.height).data;
    return [0, 1, 2].map(c => {
      const values = [];
      for (let i = c; i < data.length; i += 4) values.push(data[i]);
      values.sort((a, b) => a - b);
      return values[values.length >> 1];
    });
  };
  return {left: median(0), right: median(bitmap.width - width)};
}"""
BACKGROUND = (11, 16, 32)  # --bg of site.css


def edges(decoder: Any, wrap: Any) -> dict[str, bool]:
    """Which edges of a `.table-wrap` glow (differ from the page's background) on screen."""
    import base64

    found = decoder.evaluate(EDGES_JS, [base64.b64encode(wrap.screenshot()).decode(), 4])
    return {side: sum(abs(a - b) for a, b in zip(found[side], BACKGROUND, strict=True)) > 40 for side in found}


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1280])
def test_a_table_that_scrolls_in_its_box_says_so(transactional_db, live_server, chromium, seasons, width):
    """At 390 px a wide table scrolls inside its box and phones show no scrollbar: its right edge
    glows while more of it lies to the right, its left edge once scrolled; a table that fits (every
    one at 1280 px) shows none."""
    with site_page(chromium, live_server.url, width=width, height=844) as page:
        decoder = page.context.new_page()  # a blank page, outside the site's CSP, decodes screenshots
        log_in(page, live_server.url, "alice")
        overflowing = 0
        for url in ["/seasons/", "/seasons/done/", "/seasons/playing/", f"/events/{seasons.event.slug}/", "/status/"]:
            page.goto(live_server.url + url)
            page.wait_for_load_state("load")
            wraps = page.locator(".table-wrap")
            for index in range(wraps.count()):
                wrap = wraps.nth(index)
                where = (url, index, width)
                if wrap.evaluate("el => el.scrollWidth > el.clientWidth + 1"):
                    overflowing += 1
                    assert width == 390, where
                    assert edges(decoder, wrap) == {"left": False, "right": True}, where
                    wrap.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
                    assert edges(decoder, wrap) == {"left": True, "right": False}, where
                    if wrap.evaluate("el => el.scrollWidth - el.clientWidth") >= 100:  # in the middle: both
                        wrap.evaluate("el => { el.scrollLeft = (el.scrollWidth - el.clientWidth) / 2; }")
                        assert edges(decoder, wrap) == {"left": True, "right": True}, where
                    wrap.evaluate("el => { el.scrollLeft = 0; }")
                else:
                    assert edges(decoder, wrap) == {"left": False, "right": False}, where
            if url == "/seasons/done/":
                save_screenshot(page.screenshot(), f"site-season-{width}.png")
        assert overflowing >= (2 if width == 390 else 0)  # the season pages' standings at least
        decoder.close()
        clean(page)


def test_the_home_page_tells_staff_how_to_start_a_season_until_one_exists(client, make_user):
    """An organiser's trial: with no demo and no season, the staff's home page said only "No rated bots
    yet" and "No matches yet", nothing of what to do next."""
    from armada_web.seasons import services

    make_user("root", is_staff=True, is_superuser=True)  # as `make up` and compose make it
    make_user("helper", is_staff=True)  # staff without the right to add seasons: no link to a 403
    make_user("carl")
    client.login(username="root", password=PASSWORD)
    home = client.get("/").content.decode()
    assert 'id="organise"' in home and "manage.py season create" in home
    assert 'href="/admin/seasons/season/add/"' in home
    assert client.get("/admin/seasons/season/add/").status_code == 200  # the link it gives answers
    client.login(username="helper", password=PASSWORD)
    home = client.get("/").content.decode()
    assert 'id="organise"' in home and "/admin/seasons/season/add/" not in home
    client.login(username="carl", password=PASSWORD)
    assert 'id="organise"' not in client.get("/").content.decode()  # competitors do not see it
    client.logout()
    assert 'id="organise"' not in client.get("/").content.decode()
    spring = services.create_season(slug="spring", game="mothership", name="Spring")
    client.login(username="root", password=PASSWORD)
    home = client.get("/").content.decode()
    assert 'id="organise"' not in home and 'id="current-season"' in home
    spring.state = "finished"  # (a review: once every season had finished, it said "No season yet")
    spring.save()
    home = client.get("/").content.decode()
    assert 'id="organise"' not in home and 'id="current-season"' not in home


@pytest.mark.browser
def test_a_long_event_name_wraps_in_the_events_table(transactional_db, live_server, chromium, seasons):
    """An organiser's trial: a 100-character name without a space made /events/ 2006 px wide at 1280 px,
    its Game, Format, Owner and State off screen; at 390 px only the name was visible."""
    from armada_web.events import services as events

    events.create_event(user=seasons.arena.alice, name="W" * 100, game="galaxy", format="round_robin",
                        games_per_pair=1)
    for width in (1280, 390):
        with site_page(chromium, live_server.url, width=width, height=844) as page:
            log_in(page, live_server.url, "alice")
            page.goto(live_server.url + "/events/")
            page.wait_for_load_state("load")
            wrap = page.locator(".table-wrap").first
            assert wrap.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), width
            assert page.locator("#events td[data-label='State']").first.is_visible()
            clean(page)
