"""The Galaxy viewer as a new competitor found it (issue 27): every planet's numbers stay readable under
the fleets and probe marks, a busy turn's event list stays short, and the arrow keys still step after
a click on "next battle"."""

from __future__ import annotations

import base64

import pytest

from tests.viewer.conftest import at_rest, html_for, ready
from tests.viewer.test_galaxy_labels import demo_game

pytestmark = pytest.mark.browser

#: Every planet's numbers (id, ships, launchers) whose box meets a fleet's marker or a probe mark, at
#: the turn shown (boxes in the board's units, from getBBox), and how many fleets are on the board.
COVERED_JS = """() => {
  const svg = document.querySelector('.av-board');
  const box = (n) => { const b = n.getBBox(); return {x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height}; };
  const meet = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  const numbers = [...svg.querySelectorAll('.av-planet')].flatMap((g) =>
    [...g.querySelectorAll('.av-planet-id, .av-garrison')].map((t) => ({planet: g.dataset.planet, text: t.textContent,
      ...box(t)})));
  const marks = [...svg.querySelectorAll('.av-fleet-mark, .av-probe')].map((m) => ({what: m.getAttribute('class'),
    ...box(m)}));
  const bad = [];
  for (const n of numbers) {
    for (const m of marks) if (meet(n, m)) bad.push('P' + n.planet + ' ' + n.text + ' / ' + m.what);
  }
  return {bad, fleets: svg.querySelectorAll('.av-fleet').length, onPlanets: [...svg.querySelectorAll('.av-fleet')]
    .filter((f) => Number(f.dataset.row) % 1 === 0 && Number(f.dataset.col) % 1 === 0).length};
}"""

#: The boxes of every planet's numbers, in the page's pixels.
NUMBER_BOXES_JS = """() => {
  const numbers = document.querySelectorAll('.av-board .av-planet-id, .av-board .av-garrison');
  return [...numbers].map((t) => { const r = t.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; });
}"""

#: How many pixels differ between two PNGs of the same size inside the given boxes.
DIFF_JS = """async ([a, b, boxes, scale]) => {
  const load = async (b64) => { const img = new Image(); img.src = 'data:image/png;base64,' + b64; await img.decode();
    const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
    const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0); return ctx.getImageData(0, 0, img.width, img.height); };
  const [p, q] = [await load(a), await load(b)];
  let differ = 0, seen = 0;
  for (const [x, y, w, h] of boxes) {
    for (let j = Math.floor(y * scale); j < Math.ceil((y + h) * scale); j++) {
      for (let i = Math.floor(x * scale); i < Math.ceil((x + w) * scale); i++) {
        const k = 4 * (j * p.width + i);
        seen++;
        const d = [0, 1, 2].reduce((sum, c) => sum + Math.abs(p.data[k + c] - q.data[k + c]), 0);
        if (d > 24) differ++;
      }
    }
  }
  return {differ, seen};
}"""


def test_fleets_and_probe_marks_never_cover_a_planets_numbers(page, tmp_path):
    """A crowded game of the demo bots (random launches many small fleets), every turn at rest."""
    ready(page, demo_game("greedy", "random", 2, tmp_path).as_uri())
    last = int(page.locator(".av-scrub").get_attribute("max"))
    found = page.evaluate("""([check, last]) => {
      const root = document.querySelector('.armada-viewer');
      const look = eval(check);
      const out = [];
      for (let turn = 0; turn <= last; turn++) {
        root.dispatchEvent(new CustomEvent('armada:seek', {detail: {turn}}));
        out.push({turn: Number(root.dataset.turn), ...look()});
      }
      return out;
    }""", [COVERED_JS, last])
    assert [f["turn"] for f in found] == list(range(last + 1))
    assert [(f["turn"], f["bad"]) for f in found if f["bad"]] == []
    assert sum(f["onPlanets"] for f in found) >= 20  # fleets passing planets: what used to cover the numbers
    busy = max(found, key=lambda f: f["fleets"])
    assert busy["fleets"] >= 8

    # The pixels of every planet's numbers are the same with the fleets (markers, labels, paths, leader
    # lines) shown and hidden, at the turn with the most fleets.
    page.evaluate("(turn) => document.querySelector('.armada-viewer').dispatchEvent("
                  "new CustomEvent('armada:seek', {detail: {turn}}))", busy["turn"])
    at_rest(page)
    board = page.locator(".av-board")
    origin = board.bounding_box()
    assert origin is not None
    boxes = [[x - origin["x"], y - origin["y"], w, h] for x, y, w, h in page.evaluate(NUMBER_BOXES_JS)]
    shown = board.screenshot()
    page.add_style_tag(content=".av-fleets, .av-fleet-paths { display: none; }")
    hidden = board.screenshot()
    scale = page.evaluate("window.devicePixelRatio")
    diff = page.evaluate(DIFF_JS, [base64.b64encode(shown).decode(), base64.b64encode(hidden).decode(), boxes, scale])
    assert diff["seen"] > 1000 and diff["differ"] == 0, diff
    assert shown != hidden  # the fleets were drawn, elsewhere
    assert page.watch.errors == [] and page.watch.requests == []


def test_a_busy_turns_event_list_stays_short_and_scrolls(page, tmp_path):
    ready(page, demo_game("random", "greedy", 1, tmp_path).as_uri())
    last = int(page.locator(".av-scrub").get_attribute("max"))
    counts = page.evaluate("""(last) => {
      const root = document.querySelector('.armada-viewer');
      const out = [];
      for (let turn = 0; turn <= last; turn++) {
        root.dispatchEvent(new CustomEvent('armada:seek', {detail: {turn}}));
        out.push(document.querySelectorAll('.av-panel .av-events li').length);
      }
      return out;
    }""", last)
    busiest = max(range(len(counts)), key=lambda i: counts[i])
    assert counts[busiest] >= 20  # a busy turn indeed
    page.evaluate("(turn) => document.querySelector('.armada-viewer').dispatchEvent("
                  "new CustomEvent('armada:seek', {detail: {turn}}))", busiest)
    at_rest(page)
    events = page.locator(".av-panel .av-events")
    assert events.locator("li").count() == counts[busiest]  # nothing is dropped: the list scrolls
    height = events.evaluate("(e) => e.getBoundingClientRect().height")
    assert height <= 200
    assert events.evaluate("(e) => e.scrollHeight > e.clientHeight + 50")
    assert page.locator(".av-event-count").text_content() == f"{counts[busiest]} events"
    panel = page.locator(".av-panel").bounding_box()
    assert panel is not None and panel["height"] <= 300


def test_the_arrow_keys_still_step_after_next_battle(page, replays):
    ready(page, html_for(replays.galaxy).as_uri())
    root = page.locator(".armada-viewer")
    page.locator(".av-next").click()
    at_rest(page)
    index = int(root.get_attribute("data-index"))
    assert index > 0
    assert page.evaluate("document.activeElement.classList.contains('av-next')")  # the button kept the focus
    page.keyboard.press("ArrowRight")
    at_rest(page)
    assert root.get_attribute("data-index") == str(index + 1)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    at_rest(page)
    assert root.get_attribute("data-index") == str(index - 1)
    page.keyboard.press("End")
    at_rest(page)
    assert root.get_attribute("data-index") == page.locator(".av-scrub").get_attribute("max")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")  # Enter (and Space) still press the focused button: the next battle again
    at_rest(page)
    assert root.get_attribute("data-index") == str(index)
    assert page.watch.errors == []
