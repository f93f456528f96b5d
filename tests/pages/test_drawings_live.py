"""Issue 27 tried as a competitor would, on a live site (web server, validation and match workers, Redis,
Docker) and in Debian's Chromium: bots written with the bot library draw their plan (Galaxy: a line from
home to the target, a label, a line of text; Mothership Down: a ring round their own mothership), are
uploaded and validated, the Galaxy one challenges another bot; the owner gets the drawings from the API
and sees them on the board and beside it (Galaxy: the match page; Mothership Down, whose league battles
are played from its orders without running it: its validation game on the version's page); another user
and anonymous get 404 and pages that draw nothing; the public replay carries no drawings."""

from __future__ import annotations

import gzip
import json
import urllib.request
from typing import Any

import pytest

from tests.live.test_matches_live import wait_match
from tests.live.test_validation_live import call, token_for, upload, wait_for
from tests.pages.browser import clean, log_in, site_page
from tests.viewer.conftest import at_rest
from tests.viewer.test_debug_drawings import PURPLE, pixels_near, shapes, toggle

pytestmark = [pytest.mark.browser, pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]

#: A Galaxy bot: every planet it owns attacks the planet nearest its home that it does not own; it draws
#: that plan.
PLANNER = '''"""Planner: attack the planet nearest home, and draw the plan on the board."""

from armada.bot.galaxy import FleetOrder, GalaxyBot, Intel, Observation
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Planner"

    def command(self, obs: Observation, intel: list[Intel], warnings: list[str]) -> list[FleetOrder]:
        targets = [p for p in obs.planets if not p.is_mine]
        if not targets:
            return []
        target = obs.nearest(obs.home, targets)[0]
        self.debug.line(obs.home, target, color="purple")
        self.debug.label(target, f"next: P{target.id}", color="yellow")
        self.debug.text(f"turn {obs.turn}: take P{target.id} from P{obs.home}")
        return [FleetOrder.of(p.id, target.id, p.ships) for p in obs.my_planets() if not p.ships.empty]


if __name__ == "__main__":
    run(Bot())
'''

#: A Mothership Down bot: the cheapest orders, and a ring round its own mothership.
SHIELDED = '''"""Shielded: the cheapest orders, and a ring round my mothership."""

from armada.bot.mothership import MothershipBot, MothershipConfig, Orders
from armada.bot.runtime import run


class Bot(MothershipBot):
    name = "Shielded"

    def orders(self, config: MothershipConfig) -> Orders:
        self.debug.ring(f"mothership-{self.seat}", color="purple")
        self.debug.text("all on my mothership")
        return Orders.cheapest(config)


if __name__ == "__main__":
    run(Bot())
'''

#: The middle of seat S's drawn line, in the board's units.
LINE_MIDDLE_JS = """(seat) => {
  const line = document.querySelector('.av-debug-layer[data-seat="' + seat + '"] [data-kind=line] line');
  return ["x", "y"].map((a) => (Number(line.getAttribute(a + "1")) + Number(line.getAttribute(a + "2"))) / 2);
}"""

#: The top of the ring round seat S's mothership, in the board's units (debug.js: the ship's outline,
#: 6 units outside it).
RING_TOP_JS = """(seat) => {
  const [x, y, w, h] = ["x", "y", "width", "height"].map((a) =>
    Number(document.querySelector('.av-mothership[data-seat="' + seat + '"] rect').getAttribute(a)));
  return [x + w / 2, y - 6];
}"""


def require_fresh_bot_image() -> None:
    """The bots run the bot library the image holds: one built before `self.debug` existed plays them
    (its AttributeError caught by the runtime each turn) without a drawing, which no check here could tell
    from a site that lost them."""
    from armada_sandbox import image_status

    problem = image_status().problem()
    assert problem is None, problem


def validated(site: Any, token: str, game: str, source: str) -> dict[str, Any]:
    """Upload `source` as a new bot of `game`; the version once valid."""
    version = upload(site, token, game, f"drawing-{game}", "main.py", source.encode())
    assert wait_for(site, token, version["id"], ("valid", "invalid", "error"))["status"] == "valid"
    return version


def played(site: Any, token: str, game: str, source: str, opponent: Any) -> tuple[int, int]:
    """Upload `source` as a new bot of `game`, wait until it is valid, challenge `opponent` (a version);
    the finished match's id and the bot's seat in it."""
    version = validated(site, token, game, source)
    status, match = call(site, "POST", "/api/challenges/", token, {"bot": version["bot"], "opponent": opponent.bot_id})
    assert status == 201, match
    done = wait_match(match["id"], ("finished", "void", "failed"))
    assert done.status == "finished", (done.reason, site.log("worker-matches"))
    return done.pk, done.participants.get(version_id=version["id"]).seat


def check_api(site: Any, match_id: int, seat: int, owner: str, rival: str) -> list[dict[str, Any]]:
    """The drawings' API and the public replay; the seat's drawn turns."""
    status, drawn = call(site, "GET", f"/api/matches/{match_id}/debug/?seat={seat}", owner)
    assert status == 200 and drawn["turns"], drawn
    missing = call(site, "GET", "/api/matches/999999/debug/?seat=1", owner)
    for token in (rival, None):  # the other seat's owner, anonymous: as for a match that does not exist
        assert call(site, "GET", f"/api/matches/{match_id}/debug/?seat={seat}", token) == missing
    assert call(site, "GET", f"/api/matches/{match_id}/debug/?seat={3 - seat}", rival) == (200, {"turns": []})
    assert call(site, "GET", f"/api/matches/{match_id}/debug/?seat={3 - seat}", owner)[0] == 404
    with urllib.request.urlopen(f"{site.url}/api/matches/{match_id}/replay/", timeout=30) as response:
        assert "debug" not in json.loads(gzip.decompress(response.read()))  # the public replay: none
    return list(drawn["turns"])


def open_match(page: Any, site: Any, match_id: int, turn: int) -> None:
    page.goto(f"{site.url}/matches/{match_id}/#t={turn}")
    page.wait_for_selector(".armada-viewer[data-state=ready]")
    at_rest(page)
    assert page.locator(".armada-viewer").get_attribute("data-turn") == str(turn)


def test_bots_draw_their_plan_and_their_owner_alone_sees_it_on_the_site(live_site, chromium, valid_version):
    require_fresh_bot_image()
    from django.contrib.auth.models import User

    site = live_site
    alice, bob = token_for(site, "alice"), token_for(site, "bob")
    rival = User.objects.get(username="bob")  # bob's bots: valid without playing their validation game
    galaxy_id, g_seat = played(site, alice, "galaxy", PLANNER, valid_version(rival, "greedy"))
    shielded = validated(site, alice, "mothership", SHIELDED)  # Mothership: no matches run it, its validation does

    # (a) the API: the owner gets every turn's plan, as the bot library wrote it
    turns = check_api(site, galaxy_id, g_seat, alice, bob)
    home = 1 if g_seat == 1 else 16
    assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1))
    for t in turns:
        line, label = t["shapes"]
        assert line == {"kind": "line", "at": home, "to": label["at"], "color": "purple"}
        assert label == {"kind": "label", "at": label["at"], "text": f"next: P{label['at']}", "color": "yellow"}
        assert t["text"] == f"turn {t['turn']}: take P{label['at']} from P{home}"
    replay = f"/api/versions/{shielded['id']}/replay/"
    request = urllib.request.Request(site.url + replay, headers={"Authorization": f"Token {alice}"})
    with urllib.request.urlopen(request, timeout=30) as response:  # the validation game's, private
        debug = json.loads(gzip.decompress(response.read()))["debug"]
    ring = {"kind": "ring", "at": "mothership-1", "color": "purple"}
    assert debug == {"1": {"turns": [{"turn": 0, "text": "all on my mothership", "shapes": [ring]}]}}
    for token in (bob, None):
        assert call(site, "GET", replay, token)[0] == 404

    # (b) the match pages: the owner's board shows the plan where it is drawn and its text beside it; the
    # seat's toggle off, the same board without it
    shown = turns[4]
    target = shown["shapes"][1]["at"]
    with site_page(chromium, site.url, width=1280, height=900) as page:
        log_in(page, site.url, "alice")
        open_match(page, site, galaxy_id, shown["turn"])
        page.wait_for_selector(f'.av-debug-seat[data-seat="{g_seat}"][data-state=ready]')
        assert shapes(page, g_seat) == [("line", "purple", ""), ("label", "yellow", f"next: P{target}")]
        text = page.locator(f'.av-debug-seat[data-seat="{g_seat}"] .av-debug-text')
        assert text.is_visible() and text.text_content() == shown["text"]
        x, y = page.evaluate(LINE_MIDDLE_JS, g_seat)
        assert pixels_near(page, x, y, PURPLE, half=6) > 10  # the line, half way from home to the target
        page.screenshot(path="/tmp/i27-site.png", full_page=True)
        toggle(page, g_seat)
        assert pixels_near(page, x, y, PURPLE, half=6) == 0 and not text.is_visible()

        page.goto(f"{site.url}/bots/{shielded['bot']}/versions/1/#t=1")  # the validation game's viewer
        page.wait_for_selector('.av-debug-seat[data-seat="1"][data-state=ready]')
        at_rest(page)
        assert shapes(page, 1) == [("ring", "purple", "")]
        assert page.locator('.av-debug-seat[data-seat="1"] .av-debug-text').text_content() == "all on my mothership"
        x, y = page.evaluate(RING_TOP_JS, 1)
        assert pixels_near(page, x, y, PURPLE, half=5) > 5  # round its own mothership
        page.screenshot(path="/tmp/i27-site-mothership.png", full_page=True)
        toggle(page, 1)
        assert pixels_near(page, x, y, PURPLE, half=5) == 0
        clean(page)

    site.create_user("carol")
    with site_page(chromium, site.url) as page:  # a user of neither seat: no drawings named, none drawn
        log_in(page, site.url, "carol")
        open_match(page, site, galaxy_id, shown["turn"])
        assert "/debug/" not in page.content() and page.locator("[data-armada-debug]").count() == 0
        assert page.locator(".av-debug-shape, .av-debug-seat").count() == 0
        page.goto(f"{site.url}/bots/{shielded['bot']}/versions/1/")
        assert page.locator("[data-armada-src]").count() == 0  # nor the validation game (the owner's alone)
        clean(page)
