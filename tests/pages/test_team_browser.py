"""The team pages in Debian's Chromium at 390 px and 1280 px (issue 26): a member's team page with
its join link, renewing the key, the new-team and user pages and the bot page's move control, then
a newcomer following the join link; each page fits (tests/pages/test_layout.py's checks), no
script runs from a team's name, no request leaves the site."""

from __future__ import annotations

import pytest

from tests.pages.browser import clean, log_in, site_page
from tests.pages.test_layout import WIDTHS, check

pytestmark = [pytest.mark.browser, pytest.mark.slow]
EVIL_TEAM = "<img src=x onerror=window.__pwned=1>"


@pytest.fixture
def crew(make_user, valid_version):
    from armada_web.bots import moves
    from armada_web.teams import services
    from tests.pages.data import ratings, recorded_match

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = services.create_team(user=alice, name=EVIL_TEAM)
    services.join_team(user=bob, team=team, key=team.join_key)
    alpha, solo, gamma = valid_version(alice, "alpha"), valid_version(alice, "solo"), valid_version(carol, "gamma")
    moves.move_bot(bot=alpha.bot, user=alice, team=team.pk)
    ratings(alpha, recorded_match(alpha, gamma, winner=1), [1.0, 4.0])
    services.remove_member(user=alice, team=team, username="bob")  # a line of history (and a new key)
    team.refresh_from_db()
    return team, solo


@pytest.mark.parametrize("width", WIDTHS)
def test_team_pages_fit_and_work(transactional_db, live_server, chromium, crew, width):
    from armada_web.teams.models import Team

    team, solo = crew
    origin = live_server.url
    with site_page(chromium, origin, width=width, height=900) as page:
        log_in(page, origin, "alice")
        page.goto(f"{origin}/teams/{team.pk}/")
        assert page.locator("#team-name").inner_text() == EVIL_TEAM
        assert team.join_key in page.locator("#join-link").inner_text()
        # the whole link in sight, the key never scrolled out of its box (a trial at 390 px saw only the page's half)
        assert page.evaluate("(e) => e.scrollWidth <= e.clientWidth", page.locator("#join-link").element_handle())
        assert page.locator("#join-command").inner_text() == f"armada team join {team.pk} {team.join_key}"
        check(page, "team page", width)
        page.click("#renew-key")
        page.wait_for_load_state("load")
        key = Team.objects.get(pk=team.pk).join_key
        assert key != team.join_key and key in page.locator("#join-link").inner_text()
        check(page, "team page after renewing", width)
        link = page.locator("#join-link").inner_text().strip()
        page.click("#archive")  # asks first (D-S-26): a page of its own, then back without archiving
        page.wait_for_url(f"{origin}/teams/{team.pk}/archive/")  # a link (no lone "?" at the end)
        check(page, "archive confirmation", width)
        page.click("#confirm-form a")
        page.wait_for_url(f"{origin}/teams/{team.pk}/")
        assert Team.objects.get(pk=team.pk).archived is None
        for url in ("/teams/new/", "/users/alice/", f"/bots/{solo.bot_id}/", "/ladder/galaxy/"):
            page.goto(origin + url)
            page.wait_for_load_state("load")
            check(page, url, width)
        assert page.locator(f'#ladder a.team[href="/teams/{team.pk}/"]').count() == 1
        clean(page)
    with site_page(chromium, origin, width=width, height=900) as page:
        log_in(page, origin, "carol")
        page.goto(link)
        check(page, "join page", width)
        page.click("#join-form button[type=submit]")
        page.wait_for_url(f"{origin}/teams/{team.pk}/")
        assert page.locator("#members").inner_text().count("carol") >= 1
        check(page, "team page of a newcomer", width)
        clean(page)
