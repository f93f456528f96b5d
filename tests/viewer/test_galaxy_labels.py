"""Readable boards: in real games of the demo bots (the starters `make up` seeds: greedy, prober,
random), no fleet label overlaps a planet, another label or the board's edge, at every turn."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from armada.botspec import starter_file
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot
from armada.viewer import offline_html
from tests.viewer.conftest import ready
from tests.viewer.helpers import LABEL_OVERLAPS_JS

pytestmark = [pytest.mark.browser, pytest.mark.slow]
#: Pairings of the demo bots and seeds: the crowded ones (random launches many small fleets; two
#: greedy bots fill 200 turns with fleets) and the usual ones.
GAMES = [("random", "greedy", 1), ("greedy", "random", 2), ("greedy", "greedy", 1), ("prober", "greedy", 2),
         ("prober", "random", 1)]


def demo_game(first: str, second: str, seed: int, folder: Path) -> Path:
    bots = {seat: ProcessBot([sys.executable, str(starter_file(name, "galaxy"))], label=name)
            for seat, name in ((1, first), (2, second))}
    outcome = play_match("galaxy", bots, seed=seed)
    page = folder / f"{first}-{second}-{seed}.html"
    page.write_text(offline_html(outcome.replay), encoding="utf-8")
    return page


@pytest.mark.parametrize(("first", "second", "seed"), GAMES)
def test_no_fleet_label_overlaps_at_any_turn(page, tmp_path, first, second, seed):
    ready(page, demo_game(first, second, seed, tmp_path).as_uri())
    last = int(page.locator(".av-scrub").get_attribute("max"))
    page.locator(".av-scrub").fill("1")  # the scrubber itself moves the board (the rest goes through the hook)
    assert page.evaluate(LABEL_OVERLAPS_JS)["bad"] == []
    found = page.evaluate("""([check, last]) => {
      const root = document.querySelector('.armada-viewer');
      const look = eval(check);
      const out = [];
      for (let turn = 0; turn <= last; turn++) {
        root.dispatchEvent(new CustomEvent('armada:seek', {detail: {turn}}));
        out.push({turn: Number(root.dataset.turn), ...look()});
      }
      return out;
    }""", [LABEL_OVERLAPS_JS, last])
    assert [f["turn"] for f in found] == list(range(last + 1))  # every turn was shown
    assert [(f["turn"], f["bad"]) for f in found if f["bad"]] == []
    assert max(f["labels"] for f in found) >= 12  # the games were crowded enough to test something
    assert page.watch.errors == [] and page.watch.requests == []


def test_the_placement_keeps_its_promise_on_a_crowded_made_up_board(page, tmp_path):
    """Forty fleets around one planet: each label still finds a free place (the lanes between rows)."""
    page.goto(demo_game("greedy", "random", 2, tmp_path).as_uri())
    page.wait_for_selector(".armada-viewer[data-state=ready]")
    boxes = page.evaluate("""() => {
      const planets = [];
      for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) planets.push({x: 50 + 100 * c, y: 50 + 100 * r, r: 37});
      const items = [];
      for (let k = 0; k < 40; k++) items.push({x: 150 + (k % 5) * 3, y: 150 + (k % 7) * 2, w: 38, h: 10.5});
      return window.ArmadaViewer.galaxyLabels.place(items, planets);
    }""")
    assert len(boxes) == 40
    for i, b in enumerate(boxes):
        assert b["x0"] >= 0 and b["x1"] <= 400 and b["y0"] >= 0 and b["y1"] <= 400
        for c in boxes[i + 1:]:
            assert not (b["x0"] < c["x1"] and c["x0"] < b["x1"] and b["y0"] < c["y1"] and c["y0"] < b["y1"])
