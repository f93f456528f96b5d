"""The bot page's Challenge button in Debian's Chromium when a limit holds the user's bot back
(a new user's trial saw the disabled button drawn as bright as an active one): it is disabled,
looks it, and says why and when."""

from __future__ import annotations

import pytest

from armada_web.ladder import challenges
from tests.pages.browser import clean, log_in, site_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_held_back_challenge_button_looks_disabled(transactional_db, live_server, chromium, arena, armada):
    origin = live_server.url
    with site_page(chromium, origin) as page:
        log_in(page, origin, "alice")
        page.goto(f"{origin}/bots/{arena.beta.bot_id}/")
        button = page.locator("#challenge button")
        active = button.evaluate("b => getComputedStyle(b).backgroundColor")
        assert button.is_enabled()
        armada(challenges_per_pair_hour=1)
        challenges.challenge(user=arena.alice, bot="alpha", opponent="beta")
        page.reload()
        assert button.is_disabled()
        assert button.evaluate("b => getComputedStyle(b).backgroundColor") != active
        assert button.evaluate("b => getComputedStyle(b).cursor") == "not-allowed"
        assert "Challenge limit reached for this pair: 1 per hour" in page.locator("#challenge").inner_text()
        clean(page)
