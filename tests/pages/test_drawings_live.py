"""Issue 27 tried as a competitor would, on a live site (web server, validation and match workers, Redis,
Docker) and in Debian's Chromium: a Galaxy bot written with the bot library draws its plan (a line from
its home to its target, a label, a line of text), is uploaded, validated and challenges another bot; the
owner gets the drawings from the API and sees them on the match page's board and beside it; another
user and anonymous get 404 and a page that draws nothing; the public replay carries no drawings."""

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

#: The competitor's bot: every planet it owns attacks the planet nearest its home that it does not own,
#: and it draws that plan.
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

#: The middle of the drawn line, in page pixels (its own SVG line's ends, through the board's transform).
LINE_MIDDLE_JS = """(seat) => {
  const line = document.querySelector('.av-debug-layer[data-seat="' + seat + '"] [data-kind=line] line');
  const s = line.ownerSVGElement.createSVGPoint();
  s.x = (Number(line.getAttribute("x1")) + Number(line.getAttribute("x2"))) / 2;
  s.y = (Number(line.getAttribute("y1")) + Number(line.getAttribute("y2"))) / 2;
  return [s.x, s.y];
}"""


def replay_of(site: Any, match_id: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"{site.url}/api/matches/{match_id}/replay/", timeout=30) as response:
        return dict(json.loads(gzip.decompress(response.read())))


def test_a_bot_draws_its_plan_and_its_owner_alone_sees_it_on_the_site(live_site, chromium):
    site = live_site
    alice, bob = token_for(site, "alice"), token_for(site, "bob")
    mine = upload(site, alice, "galaxy", "planner", "main.py", PLANNER.encode())
    from armada.botspec import starter_file

    theirs = upload(site, bob, "galaxy", "greedy", "main.py", starter_file("greedy", "galaxy").read_bytes())
    for token, version in ((alice, mine), (bob, theirs)):
        assert wait_for(site, token, version["id"], ("valid", "invalid", "error"))["status"] == "valid"
    status, match = call(site, "POST", "/api/challenges/", alice, {"bot": mine["bot"], "opponent": theirs["bot"]})
    assert status == 201, match
    done = wait_match(match["id"], ("finished", "void", "failed"))
    assert done.status == "finished", (done.reason, site.log("worker-matches"))
    _s, detail = call(site, "GET", f"/api/matches/{done.pk}/", alice)
    seat = next(p["seat"] for p in detail["players"] if p["bot"]["name"] == "planner")
    other = 3 - seat

    # (a) the API: the owner gets every turn's plan; bob, anonymous and the other seat's owner do not
    status, drawn = call(site, "GET", f"/api/matches/{done.pk}/debug/?seat={seat}", alice)
    assert status == 200 and drawn["turns"], drawn
    first = drawn["turns"][0]
    home = 1 if seat == 1 else 16
    line, label = first["shapes"]
    assert line == {"kind": "line", "at": home, "to": label["at"], "color": "purple"}
    assert label == {"kind": "label", "at": label["at"], "text": f"next: P{label['at']}", "color": "yellow"}
    assert first["text"] == f"turn {first['turn']}: take P{label['at']} from P{home}"
    assert [t["turn"] for t in drawn["turns"]] == list(range(1, len(drawn["turns"]) + 1))
    for token in (bob, None):
        status, body = call(site, "GET", f"/api/matches/{done.pk}/debug/?seat={seat}", token)
        assert status == 404, body
    assert call(site, "GET", f"/api/matches/{done.pk}/debug/?seat={other}", bob) == (200, {"turns": []})
    assert call(site, "GET", f"/api/matches/{done.pk}/debug/?seat={other}", alice)[0] == 404

    # (c) the public replay carries no drawings
    assert "debug" not in replay_of(site, done.pk)

    # (b) the match page: the owner's board shows the plan where it is drawn, the text beside it
    turn = drawn["turns"][4]["turn"] if len(drawn["turns"]) > 4 else first["turn"]
    shown = next(t for t in drawn["turns"] if t["turn"] == turn)
    url = f"{site.url}/matches/{done.pk}/"
    with site_page(chromium, site.url, width=1280, height=900) as page:
        log_in(page, site.url, "alice")
        page.goto(f"{url}#t={turn}")
        page.wait_for_selector(f'.av-debug-seat[data-seat="{seat}"][data-state=ready]')
        at_rest(page)
        assert page.locator(".armada-viewer").get_attribute("data-turn") == str(turn)
        target = shown["shapes"][1]["at"]
        assert shapes(page, seat) == [("line", "purple", ""), ("label", "yellow", f"next: P{target}")]
        text = page.locator(f'.av-debug-seat[data-seat="{seat}"] .av-debug-text')
        assert text.is_visible() and text.text_content() == shown["text"]
        x, y = page.evaluate(LINE_MIDDLE_JS, seat)
        assert pixels_near(page, x, y, PURPLE, half=6) > 10  # the line, between home and target
        page.screenshot(path="/tmp/i27-site.png", full_page=True)
        toggle(page, seat)  # off: the same board without it
        assert pixels_near(page, x, y, PURPLE, half=6) == 0
        assert not text.is_visible()
        clean(page)

    site.create_user("carol")
    with site_page(chromium, site.url) as page:  # a user of neither seat: no drawings named, none drawn
        log_in(page, site.url, "carol")
        page.goto(f"{url}#t={turn}")
        page.wait_for_selector(".armada-viewer[data-state=ready]")
        at_rest(page)
        assert "/debug/" not in page.content() and page.locator("[data-armada-debug]").count() == 0
        assert page.locator(".av-debug-shape, .av-debug-seat").count() == 0
        clean(page)
