"""The match page as a new competitor found it (issue 27), in Debian's Chromium: at 1280x800 the board
and its controls are in the first screen, with and without the owner's log beside them; the viewing
user's own seat is marked "you" in the viewer and on the page (under the site's name for the bot),
and nobody else's is."""

from __future__ import annotations

import pytest

from tests.pages.browser import clean, log_in, site_page
from tests.pages.data import EVIL_RACE
from tests.viewer.conftest import save_screenshot

pytestmark = pytest.mark.browser

#: Where the board and the controls are, and what the viewer's header and the seats' table say.
SCREEN_JS = """() => {
  const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, width: r.width}; };
  const seat = (n) => { const s = document.querySelector('.av-header .av-seat-' + n);
    return {name: s.querySelector('.av-name').textContent, you: !!s.querySelector('.av-you')}; };
  return {board: box('.av-board, .av-field'), controls: box('.av-controls'), scroll: window.scrollY,
          seats: {1: seat(1), 2: seat(2)},
          fog: [...document.querySelectorAll('.av-fog option')].map((o) => o.textContent),
          rows: [...document.querySelectorAll('#seats tbody tr')].map((r) => !!r.querySelector('.you'))};
}"""


def screen(page, url: str):
    page.goto(url)
    page.wait_for_selector(".armada-viewer[data-state=ready]")
    return page.evaluate(SCREEN_JS)


def test_board_and_controls_fit_the_first_screen_and_your_seat_is_marked(transactional_db, live_server, chromium,
                                                                         arena, make_user):
    """alice owns seat 1 and bob seat 2 (each sees their log beside the viewer), staff see both logs and
    own neither seat, nobody signed in owns nothing."""
    from armada_web.matches.models import Participant

    make_user("root", is_staff=True)
    # Names of the longest kind (40 characters): in a trial the seats' line took two rows above the
    # board, the controls two below it, and the fog switch ended below the first screen.
    for seat, version in ((1, arena.alpha), (2, arena.beta)):
        version.bot.name = f"seat-{seat}-flagship-of-the-outer-rim-fleet"[:40]
        version.bot.save(update_fields=["name"])
        Participant.objects.filter(match=arena.match, seat=seat).update(name=version.bot.name)
    names = {1: arena.alpha.bot.name, 2: arena.beta.bot.name}
    for who, own, logs in (("alice", 1, 1), ("bob", 2, 1), ("root", None, 2), (None, None, 0)):
        with site_page(chromium, live_server.url, width=1280, height=800) as page:
            if who:
                log_in(page, live_server.url, who)
            shown = screen(page, f"{live_server.url}/matches/{arena.match.pk}/")
            board, controls = shown["board"], shown["controls"]
            assert page.locator(".match-log").count() == logs
            assert shown["scroll"] == 0
            assert controls["bottom"] <= 800 and controls["top"] >= 0, (who, shown)
            assert board["top"] >= 0 and board["bottom"] <= controls["top"] + 1, (who, shown)  # all of it, above them
            assert board["height"] >= 300 and board["width"] >= 300, (who, shown)
            for seat in (1, 2):
                assert shown["seats"][str(seat)] == {"name": names[seat], "you": seat == own}, who
            assert shown["rows"] == [seat == own for seat in (1, 2)], who
            assert shown["fog"] == ["no fog"] + [f"fog: seat {s}" + (" (you)" if s == own else "") for s in (1, 2)]
            assert page.locator("h1 .you").count() == (1 if own else 0)
            if who == "alice":
                save_screenshot(page.screenshot(), "site-match-first-screen.png")
                # A league battle's viewer too: seats under the races' names and their bots' (alice's
                # race name is an injection attempt, shown as text), hers marked.
                page.goto(f"{live_server.url}/ladder/mothership/{arena.race_a.bot_id}/{arena.race_b.bot_id}/")
                page.wait_for_selector(".armada-viewer[data-state=ready]")
                seats = page.evaluate(SCREEN_JS)["seats"]
                assert seats == {"1": {"name": f"{EVIL_RACE} (hammer)", "you": True},
                                 "2": {"name": "glass", "you": False}}
            clean(page)
