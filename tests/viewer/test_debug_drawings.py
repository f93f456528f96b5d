"""The bots' drawings over the board (issue 27, docs/viewer.md "Bots' drawings"): each seat's shapes are
drawn where the bot put them, in both games, from the offline page's `debug` and from the URLs a site page
names; a toggle per seat hides them; bad shapes are skipped and every text stays text."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from armada.viewer import SCRIPTS, VIEWER_DIR, offline_html_from_text
from tests.viewer.conftest import at_rest, ready

pytestmark = pytest.mark.browser

EVIL = "<img src=x onerror=window.__pwned=1>"
EVIL_TEXT = "</script><script>window.__pwned=2</script> plan: take P6"
PURPLE = (0xC7, 0x7D, 0xFF)  # debug.js PALETTE.purple: no board colour is near it
CYAN = (0x22, 0xE0, 0xF0)
INF = '"__INF__"'  # written as 1e999 in the page's JSON: JSON.parse makes it Infinity

#: How many pixels of a PNG are within `tol` of a colour (decoded in a blank page: no network).
COUNT_JS = """async ([b64, rgb, tol]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + b64;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, img.width, img.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]) <= tol) n++;
  }
  return n;
}"""

#: Page coordinates of a point in the board's own units.
POINT_JS = """([x, y]) => {
  const s = document.querySelector(".av-board, .av-field");
  const p = s.createSVGPoint(); p.x = x; p.y = y;
  const q = p.matrixTransform(s.getScreenCTM());
  return [q.x + window.scrollX, q.y + window.scrollY];
}"""


#: The planets' texts (id, ships, launchers) that a seat's dots, lines and arrows at the given planets cover.
COVERED_JS = """([seat, planets]) => {
  const over = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const marks = [...document.querySelectorAll('.av-debug-layer[data-seat="' + seat + '"] :is(circle, line, polygon)')]
    .filter((n) => n.closest('[data-kind]').dataset.kind !== 'ring');
  const covered = [];
  for (const id of planets) {
    for (const t of document.querySelectorAll('[data-planet="' + id + '"] text')) {
      const box = t.getBBox();
      for (const m of marks) {
        if (m.tagName === 'line') {  // a line's box is too coarse: sample points along it
          const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((a) => +m.getAttribute(a));
          for (let k = 0; k <= 50; k++) {
            const p = {x: x1 + (x2 - x1) * k / 50 - 1, y: y1 + (y2 - y1) * k / 50 - 1, width: 2, height: 2};
            if (over(p, box)) { covered.push(id + ':' + t.textContent); break; }
          }
        } else if (over(m.getBBox(), box)) covered.push(id + ':' + t.textContent);
      }
    }
  }
  return covered;
}"""


#: Labels of the shown drawings that the board's edges cut (one wider than the board must start at its left edge).
CUT_LABELS_JS = """() => {
  const board = document.querySelector('.av-board, .av-field');
  const v = board.viewBox.baseVal;
  return [...document.querySelectorAll('.av-debug-label')].map((t) => [t.textContent, t.getBBox()])
    .filter(([, b]) => b.x < v.x - 0.5 || (b.x + b.width > v.x + v.width + 0.5 && b.x > v.x + 0.5))
    .map(([text, b]) => [text.slice(0, 20), Math.round(b.x), Math.round(b.width)]);
}"""


def pixels_near(page: Any, x: float, y: float, rgb: tuple[int, int, int], half: int = 8) -> int:
    """Pixels of colour `rgb` in a small square around board point (x, y), as shown."""
    px, py = page.evaluate(POINT_JS, [x, y])
    png = page.screenshot(clip={"x": px - half, "y": py - half, "width": 2 * half, "height": 2 * half}, full_page=True)
    blank = getattr(page, "blank", None) or page.context.new_page()  # counted in a page of its own (no CSP)
    page.blank = blank
    return int(blank.evaluate(COUNT_JS, [base64.b64encode(png).decode(), list(rgb), 60]))


def offline_page(replay: dict[str, Any], debug: dict[str, Any], folder: Path, turn: int) -> str:
    """The offline page (as `armada replay --html` writes it) of `replay` carrying `debug`, at `turn`."""
    text = json.dumps({**replay, "debug": debug}).replace(INF, "1e999")
    out = folder / "page.html"
    out.write_text(offline_html_from_text(text), encoding="utf-8")
    return out.as_uri() + f"#t={turn}"


def shapes(page: Any, seat: int) -> list[tuple[str, str, str]]:
    return [tuple(x) for x in page.evaluate(
        """(seat) => [...document.querySelectorAll('.av-debug-layer[data-seat="' + seat + '"] .av-debug-shape')]
             .map((n) => [n.dataset.kind, n.dataset.color, n.textContent])""", seat)]


def toggle(page: Any, seat: int) -> None:
    page.locator(f'.av-debug-toggle[data-seat="{seat}"]').click()


def clean(page: Any) -> None:
    assert page.watch.errors == [] and page.watch.dialogs == [] and page.watch.requests == []
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_galaxy_drawings_where_planted_toggled_and_bad_input_skipped(page, replays, tmp_path):
    replay = replays.load("galaxy")
    bad: list[Any] = [
        {"kind": "dot", "at": 99}, {"kind": "dot", "at": [9, 9]}, {"kind": "circle", "at": 1},
        {"kind": "line", "at": 1}, {"kind": "dot", "at": [INF, 0]}, {"kind": "dot", "at": [1, "a"]},
        {"kind": "dot", "at": [1, 2, 3]}, "junk", None, {"kind": "arrow", "at": 1, "to": {"x": 1}},
        {"kind": "label", "at": 2}, {"kind": "ring"}, {"kind": "dot", "at": 2.5}, {"kind": "dot", "at": "P3"},
        {"kind": "dot", "at": [3.6, 0]},
    ]
    good = [
        {"kind": "dot", "at": [1.5, 1.5], "color": "purple"},  # the empty space between planets 6, 7, 10 and 11
        {"kind": "ring", "at": 6, "color": "green", "text": EVIL},
        {"kind": "arrow", "at": 1, "to": 16, "color": "orange"},
        {"kind": "label", "at": [0.5, 2.5], "text": EVIL, "color": "yellow"},
        {"kind": "label", "at": 3, "text": "x" * 1000},
        {"kind": "dot", "at": 5, "color": "javascript:alert(1)"},
    ]
    debug = {
        "1": {"turns": [{"turn": 5, "shapes": bad[:7] + good + bad[7:], "text": EVIL_TEXT + "y" * 20_000},
                        {"turn": "5"}, {"turn": -1, "shapes": good}, {"turn": 5.5, "shapes": good}, "junk"]},
        "2": {"turns": [{"turn": 5, "shapes": [{"kind": "dot", "at": 16, "color": "cyan"}], "text": "scout"},
                        {"turn": 5, "shapes": [{"kind": "ring", "at": 16}], "text": "command"}]},
    }
    ready(page, offline_page(replay, debug, tmp_path, 5))
    assert page.locator(".armada-viewer").get_attribute("data-turn") == "5"
    assert shapes(page, 1) == [("dot", "purple", ""), ("ring", "green", EVIL), ("arrow", "orange", ""),
                               ("label", "yellow", EVIL), ("label", "white", "x" * 79 + "\u2026"), ("dot", "white", "")]
    assert shapes(page, 2) == [("dot", "cyan", ""), ("ring", "white", "")]  # a turn's two replies, merged
    text = page.locator('.av-debug-seat[data-seat="1"] .av-debug-text').text_content()
    assert text.startswith(EVIL_TEXT) and len(text) == 16384
    assert page.locator('.av-debug-seat[data-seat="2"] .av-debug-text').text_content() == "scout\ncommand"
    assert page.evaluate("document.querySelectorAll('.armada-viewer img, .armada-viewer script').length") == 0
    assert pixels_near(page, 200, 200, PURPLE) > 30  # the planted dot, on the board
    label, disc = page.evaluate("""() => [
      document.querySelector('.av-debug-layer[data-seat="1"] [data-kind=label][data-color=white]').getBBox(),
      document.querySelector('[data-planet="3"] .av-disc').getBBox()].map((b) => [b.x, b.y, b.width, b.height])""")
    assert disc[1] + disc[3] <= label[1] <= disc[1] + disc[3] + 6  # a label at planet 3: under it, not on its numbers
    assert page.evaluate(CUT_LABELS_JS) == []  # the 80 characters at planet 3 start at the board's left edge
    # a dot at planet 5 and the arrow's ends at planets 1 and 16 sit on the rims: every number stays readable
    assert page.evaluate(COVERED_JS, [1, [1, 5, 16]]) == []
    assert page.evaluate(COVERED_JS, [2, [16]]) == []
    dot, arrow_head = page.evaluate("""() => {
      const dot = document.querySelector('.av-debug-layer[data-seat="1"] [data-kind=dot][data-color=white]');
      const head = document.querySelector('.av-debug-layer[data-seat="1"] [data-kind=arrow] polygon');
      const tip = head.getAttribute('points').split(' ')[0].split(',').map(Number);
      return [[+dot.getAttribute('cx'), +dot.getAttribute('cy')], tip];
    }""")
    assert 36 <= ((dot[0] - 50) ** 2 + (dot[1] - 150) ** 2) ** 0.5 <= 40 and dot[0] < 50  # planet 5's rim, lower left
    assert 36 <= ((arrow_head[0] - 350) ** 2 + (arrow_head[1] - 350) ** 2) ** 0.5 <= 40  # its head at 16's rim

    toggle(page, 1)  # seat 1 off: its dot is gone, seat 2's stay
    assert pixels_near(page, 200, 200, PURPLE) == 0
    assert page.locator('.av-debug-layer[data-seat="1"]').get_attribute("visibility") == "hidden"
    assert not page.locator('.av-debug-seat[data-seat="1"] .av-debug-text').is_visible()
    assert len(shapes(page, 2)) == 2
    page.keyboard.press("ArrowRight")  # the click gave the keys back to the viewer
    at_rest(page)
    assert page.locator(".armada-viewer").get_attribute("data-turn") == "6"
    toggle(page, 1)
    assert shapes(page, 1) == [] and page.locator('.av-debug-seat[data-seat="1"] .av-debug-note').text_content() == (
        "nothing drawn this turn")
    clean(page)


def test_mothership_drawings_on_ships_in_every_round(page, replays, tmp_path):
    replay = replays.load("mothership")
    debug = {
        "1": {"turns": [{"turn": 0, "text": "all in on lane 1", "shapes": [
            {"kind": "ring", "at": "mothership-2", "color": "purple"},
            {"kind": "arrow", "at": "fighter-1-1", "to": "fighter-2-1", "color": "purple"},
            {"kind": "dot", "at": [0.5, 0.5]}, {"kind": "label", "at": "fighter-1-2", "text": EVIL},
            {"kind": "dot", "at": "fighter-1-9"}, {"kind": "dot", "at": "the moon"}, {"kind": "dot", "at": [1.5, 0.5]},
            {"kind": "dot", "at": "enemy mothership"}, {"kind": "dot", "at": "mothership-3"}, {"kind": "dot", "at": 1},
            {"kind": "label", "at": "mothership-1", "text": "the home fleet is weak here", "color": "orange"},
        ]}]},
        "2": {"turns": [{"turn": None, "shapes": [{"kind": "dot", "at": "mothership-2", "color": "cyan"}]}]},
    }
    ready(page, offline_page(replay, debug, tmp_path, 0))
    assert shapes(page, 1) == [("ring", "purple", ""), ("arrow", "purple", ""), ("dot", "white", ""),
                               ("label", "white", EVIL), ("label", "orange", "the home fleet is weak here")]
    assert page.evaluate(CUT_LABELS_JS) == []  # a label at seat 1's mothership, by the board's edge, stays on it
    x, y, width, height = page.evaluate("""() => ['x', 'y', 'width', 'height'].map((a) =>
      Number(document.querySelector('.av-mothership[data-seat="2"] rect').getAttribute(a)))""")
    centre_x, centre_y = x + width / 2, y + height / 2
    ring_top = y - 6  # the ring is the ship's outline 6 units outside it (a trial: a circle crossed the tall ship)
    assert pixels_near(page, centre_x, ring_top, PURPLE, half=5) > 5  # seat 1's ring round seat 2's mothership
    assert pixels_near(page, x - 6, centre_y, PURPLE, half=4) > 5  # its side, clear of the ship
    assert pixels_near(page, centre_x, centre_y - (width / 2 + 5), PURPLE, half=5) == 0  # nothing across the ship
    dot_x, dot_y = centre_x + 12, y  # seat 2's dot on its own mothership: on its top edge, clear of its defence
    assert pixels_near(page, dot_x, dot_y, CYAN, half=5) > 10 and pixels_near(page, centre_x, centre_y, CYAN) == 0
    label = page.evaluate("""() => document.querySelector('[data-kind=label][data-color=orange]').getBBox().y""")
    ship_bottom = page.evaluate("""() => {
      const b = document.querySelector('.av-mothership[data-seat="1"] rect').getBBox();
      return b.y + b.height;
    }""")
    assert label >= ship_bottom  # the label at seat 1's mothership: under it
    page.get_by_role("button", name="step forward (right arrow)").click()
    at_rest(page)
    assert len(shapes(page, 1)) == 5 and pixels_near(page, centre_x, ring_top, PURPLE, half=5) > 5  # every round
    toggle(page, 1)
    assert pixels_near(page, centre_x, ring_top, PURPLE, half=5) == 0
    assert pixels_near(page, dot_x, dot_y, CYAN, half=5) > 10
    clean(page)


def test_site_fetches_the_named_seats_and_a_failed_fetch_is_no_drawings(page, replays):
    """The site's way: the page names each seat's drawings URL (data-armada-debug); seat 2's answers 404."""
    w = page.watch
    for name in (*SCRIPTS, "viewer.css"):
        ctype = "text/css" if name.endswith(".css") else "text/javascript"
        w.serve(f"/static/{name}", (VIEWER_DIR / name).read_bytes(), ctype)
    w.serve("/replays/1.json.gz", replays.galaxy.read_bytes(), "application/gzip")
    drawings = {"turns": [{"turn": 3, "shapes": [{"kind": "dot", "at": [1.5, 1.5], "color": "purple"}], "text": EVIL}]}
    w.serve("/api/matches/1/debug/?seat=1", json.dumps(drawings).encode(), "application/json")
    w.serve("/api/matches/1/debug/?seat=2", b'{"detail": "Not found."}', "application/json", status=404)
    sources = [{"seat": 1, "url": "/api/matches/1/debug/?seat=1", "on": True},
               {"seat": 2, "url": "/api/matches/1/debug/?seat=2", "on": False}]
    attr = json.dumps(sources).replace("&", "&amp;").replace('"', "&quot;")
    tags = "".join(f'<script src="/static/{n}"></script>' for n in SCRIPTS)
    html = (f'<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/static/viewer.css"></head>'
            f'<body><div data-armada-src="/replays/1.json.gz" data-armada-debug="{attr}"></div>{tags}</body></html>')
    csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'"
    ready(page, w.serve("/matches/1/", html.encode(), "text/html", headers={"content-security-policy": csp}) + "#t=3")
    page.wait_for_selector('.av-debug-seat[data-seat="2"][data-state="none"]')
    page.wait_for_selector('.av-debug-seat[data-seat="1"][data-state="ready"]')
    assert shapes(page, 1) == [("dot", "purple", "")]
    assert page.locator('.av-debug-seat[data-seat="1"] .av-debug-text').text_content() == EVIL
    assert page.locator('.av-debug-toggle[data-seat="1"]').is_checked()
    assert not page.locator('.av-debug-toggle[data-seat="2"]').is_checked()
    assert page.locator('.av-debug-seat[data-seat="2"] .av-debug-note').text_content() == "no drawings"
    assert pixels_near(page, 200, 200, PURPLE) > 30
    w.errors[:] = [e for e in w.errors if "404" not in e]  # the browser's own note of seat 2's answer
    clean(page)


def test_a_drawing_at_a_mothership_a_forfeit_left_undrawn_is_skipped(page, replays, tmp_path):
    """A trial: a label at a mothership that is not on the board (its bot gave no orders) went to the
    board's top-left corner; viewer.md says a drawing at an unknown ship is skipped."""
    replay = replays.load("forfeit_mothership")
    debug = {"1": {"turns": [{"turn": None, "shapes": [
        {"kind": "label", "at": "mothership-1", "text": "too rich"},
        {"kind": "dot", "at": [0.5, 0.5], "color": "purple"},
    ]}]}}
    ready(page, offline_page(replay, debug, tmp_path, 0))
    assert page.locator('.av-mothership[data-seat="1"]').count() == 0  # the forfeit left it undrawn
    assert shapes(page, 1) == [("dot", "purple", "")]
    clean(page)


#: Labels of the shown drawings that the board's top or bottom edge cuts.
CUT_LABELS_Y_JS = """() => {
  const board = document.querySelector('.av-board, .av-field');
  const v = board.viewBox.baseVal;
  return [...document.querySelectorAll('.av-debug-label')].map((t) => [t.textContent, t.getBBox()])
    .filter(([, b]) => b.y < v.y - 0.5 || b.y + b.height > v.y + v.height + 0.5)
    .map(([text, b]) => [text.slice(0, 20), Math.round(b.y), Math.round(b.height)]);
}"""


def test_labels_on_the_top_and_bottom_edges_stay_on_the_board(page, replays, tmp_path):
    """A label at a point on the board's top or bottom edge (the docs' own range: Galaxy -0.5 to 3.5,
    Mothership 0 to 1) is moved onto the board, not cut in half by its edge."""
    galaxy = {"1": {"turns": [{"turn": 5, "shapes": [
        {"kind": "label", "at": [1.5, -0.5], "text": "top edge"},
        {"kind": "label", "at": [1.5, 3.5], "text": "bottom edge"},
        {"kind": "label", "at": [3.5, -0.5], "text": "top right corner"}]}]}}
    ready(page, offline_page(replays.load("galaxy"), galaxy, tmp_path, 5))
    assert len(shapes(page, 1)) == 3
    assert page.evaluate(CUT_LABELS_Y_JS) == [] and page.evaluate(CUT_LABELS_JS) == []
    mothership = {"1": {"turns": [{"turn": 0, "shapes": [
        {"kind": "label", "at": [0, 0], "text": "top left"},
        {"kind": "label", "at": [1, 1], "text": "bottom right"}]}]}}
    (tmp_path / "ms").mkdir()  # a page of its own: the same address with another #t would not load again
    ready(page, offline_page(replays.load("mothership"), mothership, tmp_path / "ms", 0))
    assert len(shapes(page, 1)) == 2
    assert page.evaluate(CUT_LABELS_Y_JS) == [] and page.evaluate(CUT_LABELS_JS) == []
    clean(page)
