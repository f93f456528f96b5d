"""The offline Galaxy viewer from `armada replay --html`, in headless Chromium with the network cut off."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path
from typing import Any

import pytest

from armada.viewer import offline_html
from tests.pages.layout import A11Y_JS
from tests.viewer.conftest import EVIL_NAMES, at_rest, html_for, ready, save_screenshot
from tests.viewer.helpers import fogged_copy, galaxy_frames, knowledge, pixel_stats, turn_events

pytestmark = pytest.mark.browser

#: Reads every planet and fleet the board shows, and the side panel's text.
BOARD_JS = """() => {
  const planets = {};
  for (const g of document.querySelectorAll(".av-planet")) {
    planets[g.dataset.planet] = {owner: Number(g.dataset.owner), known: g.dataset.known,
      text: [...g.querySelectorAll("text")].map((t) => t.textContent)};
  }
  const fleets = [...document.querySelectorAll(".av-fleet")].map((g) => ({id: Number(g.dataset.fleet),
    owner: Number(g.dataset.owner), row: Number(g.dataset.row), col: Number(g.dataset.col)}));
  return {planets, fleets, panel: document.querySelector(".av-panel").textContent,
          header: document.querySelector(".av-header").textContent};
}"""


def mid_turn(replay: dict[str, Any]) -> int:
    """A turn in the middle where seat 1 probed and seat 2 has fleets in flight."""
    frames = galaxy_frames(replay)
    candidates = [
        f["turn"] for f in frames
        if any(x["owner"] == 2 for x in f["fleets"]) and any(x["owner"] == 1 for x in f["fleets"])
        and any(e["type"] == "probes" and e["seat"] == 1 and e["intel"] for e in turn_events(replay, f["turn"]))
    ]
    assert candidates, "the test replay needs a turn with probes and fleets of both seats"
    return candidates[len(candidates) // 2]


@pytest.fixture
def galaxy(page, replays):
    return ready(page, html_for(replays.galaxy).as_uri()), replays.load("galaxy")


def board(page) -> dict[str, Any]:
    return page.evaluate(BOARD_JS)


def ships_text(units: dict[str, int]) -> str:
    parts = [f"{units[kind]}{kind[0].upper()}" for kind in ("battleships", "cruisers") if units[kind]]
    return " ".join(parts) or "0"


def expect_planet(shown: dict[str, Any], planet_id: int, units: dict[str, int]) -> None:
    assert shown["text"] == [f"P{planet_id}", ships_text(units), f"{units['launchers']}L"]


def scrub_to(page, index: int) -> None:
    page.locator(".av-scrub").fill(str(index))
    at_rest(page)


def test_opens_offline_with_no_request_and_shows_each_frame(galaxy):
    page, replay = galaxy
    frames = galaxy_frames(replay)
    root = page.locator(".armada-viewer")
    assert root.get_attribute("data-game") == "galaxy"
    last = frames[-1]["turn"]
    assert page.locator(".av-counter").text_content() == f"turn 0 / {last}"
    for index in (0, 5, len(frames) - 1):
        scrub_to(page, index)
        frame = frames[index]
        assert root.get_attribute("data-turn") == str(frame["turn"])
        shown = board(page)
        for p in frame["planets"]:
            expect_planet(shown["planets"][str(p["id"])], p["id"], p)
            assert shown["planets"][str(p["id"])]["owner"] == p["owner"]
        assert sorted(f["id"] for f in shown["fleets"]) == sorted(f["id"] for f in frame["fleets"])
        for f in shown["fleets"]:
            recorded = next(x for x in frame["fleets"] if x["id"] == f["id"])
            assert [f["row"], f["col"]] == pytest.approx(recorded["position"], abs=1e-3)
        count = frame["planet_count"]["1"]  # "1 planet" at the start, never "1 planets"
        assert f"{count} planet{'' if count == 1 else 's'} \u00b7" in shown["header"]
        assert f"MLE {frame['mle']['2']}" in shown["header"]
    assert "wins by elimination" in page.locator(".av-result").text_content()
    assert page.watch.requests == [] and page.watch.errors == [] and page.watch.dialogs == []
    assert page.watch.files == [page.url.split("#")[0]]  # the page itself, nothing else: all is inline
    # one h1 naming the game and its bots, headings in order, a language: as the site's pages
    assert page.locator("h1").text_content() == "Armada replay: galaxy, " + " vs ".join(
        s["name"] for s in replay["seats"])
    assert page.evaluate(A11Y_JS, True) == []


def test_play_pause_step_and_keyboard(galaxy):
    page, _ = galaxy
    root = page.locator(".armada-viewer")
    page.locator(".av-speed").select_option("8")
    page.locator(".av-play").click()
    page.wait_for_function("Number(document.querySelector('.armada-viewer').dataset.index) >= 3")
    page.locator(".av-board").click(position={"x": 1, "y": 1})  # focus leaves the buttons: keys go to the viewer
    page.keyboard.press("Space")
    at_rest(page)
    index = int(root.get_attribute("data-index"))
    assert index >= 3
    page.keyboard.press("ArrowRight")
    at_rest(page)
    assert root.get_attribute("data-index") == str(index + 1)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    at_rest(page)
    assert root.get_attribute("data-index") == str(index - 1)
    page.get_by_role("button", name="step forward (right arrow)").click()
    at_rest(page)
    assert root.get_attribute("data-index") == str(index)
    page.get_by_role("button", name="step back (left arrow)").click()
    at_rest(page)
    assert root.get_attribute("data-index") == str(index - 1)
    page.keyboard.press("End")
    page.locator(".av-board").click(position={"x": 1, "y": 1})
    page.keyboard.press("Space")  # at the end, play starts again from the beginning
    page.wait_for_function("document.querySelector('.armada-viewer').dataset.playing === 'true'")
    page.wait_for_function("document.querySelector('.armada-viewer').dataset.playing === 'false'", timeout=15000)
    assert root.get_attribute("data-index") == str(page.locator(".av-scrub").get_attribute("max"))
    assert page.watch.requests == [] and page.watch.errors == []


def on_path(start: int, end: int, row: float, col: float) -> bool:
    """Is (row, col) on the GX-11 display path from start to end (diagonal first, then straight)?"""
    r, c = divmod(start - 1, 4)
    rb, cb = divmod(end - 1, 4)
    points = [(r, c)]
    while (r, c) != (rb, cb):
        r += (rb > r) - (rb < r)
        c += (cb > c) - (cb < c)
        points.append((r, c))
    for (r0, c0), (r1, c1) in itertools.pairwise(points):
        for t in (i / 200 for i in range(201)):
            if abs(r0 + (r1 - r0) * t - row) < 0.02 and abs(c0 + (c1 - c0) * t - col) < 0.02:
                return True
    return len(points) == 1 and (row, col) == points[0]


def test_fleets_move_smoothly_along_their_paths(galaxy):
    page, replay = galaxy
    frames = galaxy_frames(replay)
    # a turn with a fleet that flies for more than one turn: its moves between two grid points
    index = next(i for i, f in enumerate(frames) if i > 0 and f["fleets"] and frames[i - 1]["fleets"])
    scrub_to(page, index - 1)
    samples = page.evaluate("""() => new Promise((done) => {
      const seen = [];
      document.querySelector('[aria-label="step forward (right arrow)"]').click();
      const t0 = performance.now();
      const look = () => {
        for (const g of document.querySelectorAll(".av-fleet")) {
          seen.push([Number(g.dataset.fleet), Number(g.dataset.from), Number(g.dataset.to),
                     Number(g.dataset.row), Number(g.dataset.col)]);
        }
        if (performance.now() - t0 < 600) requestAnimationFrame(look); else done(seen);
      };
      requestAnimationFrame(look);
    })""")
    positions: dict[int, set[tuple[float, float]]] = {}
    for fid, start, end, row, col in samples:
        assert on_path(start, end, row, col), (fid, start, end, row, col)
        positions.setdefault(fid, set()).add((round(row, 3), round(col, 3)))
    assert max(len(p) for p in positions.values()) >= 4  # in between, not jumping from turn to turn
    assert page.watch.errors == []


def test_battles_captures_probes_and_next_battle(galaxy):
    page, replay = galaxy
    frames = galaxy_frames(replay)
    first = next(i for i, f in enumerate(frames) if any(e["type"] == "battle" for e in turn_events(replay, f["turn"])))
    page.locator(".av-next").click()
    at_rest(page)
    assert page.locator(".armada-viewer").get_attribute("data-index") == str(first)
    turn = frames[first]["turn"]
    events = turn_events(replay, turn)
    battles = sorted(e["planet"] for e in events if e["type"] == "battle")
    captures = sorted(e["planet"] for e in events if e["type"] == "capture")
    probed = sorted({t for e in events if e["type"] == "probes" for t in e["targets"]})
    marked = page.evaluate("""() => {
      const ids = (selector, read) =>
        [...new Set([...document.querySelectorAll(selector)].map(read))].sort((a, b) => a - b);
      return {
        battles: ids("[data-battle]", (n) => Number(n.dataset.battle)),
        captures: ids("[data-capture]", (n) => Number(n.dataset.capture)),
        probes: ids("[data-probe]", (n) => Number(n.closest("[data-planet]").dataset.planet)),
      };
    }""")
    assert marked == {"battles": battles, "captures": captures, "probes": probed}
    assert battles
    assert "Battle at P" in page.locator(".av-panel").text_content()


def test_click_a_planet_to_inspect_it(galaxy):
    page, replay = galaxy
    frames = galaxy_frames(replay)
    index = 4
    scrub_to(page, index)
    frame = frames[index]
    home = frame["planets"][0]
    page.locator('.av-planet[data-planet="1"]').click()
    panel = page.locator(".av-panel")
    text = panel.text_content()
    assert panel.get_attribute("data-planet") == "1"
    assert "Planet 1" in text and "seat 1" in text
    assert f"battleships{home['battleships']}" in text and f"launchers{home['launchers']}" in text
    prod = home["production"]
    assert f"{prod['battleships']}B {prod['cruisers']}C {prod['launchers']}L per turn" in text
    assert f"hold{home['hold']} turn" in text
    events = turn_events(replay, frame["turn"])
    launched = [e["fleet"] for e in events if e["type"] == "launch" and e["fleet"]["from"] == 1]
    for fleet in launched:
        assert f"Fleet #{fleet['id']} of seat 1 launched P1 \u2192 P{fleet['to']}" in text
    scrub_to(page, index + 1)  # the selection stays while the turns change
    assert panel.get_attribute("data-planet") == "1"
    page.locator(".av-close").click()
    assert panel.get_attribute("data-planet") is None


def test_chart_of_planets_and_mle(galaxy):
    page, replay = galaxy
    count = len(galaxy_frames(replay))
    lines = page.evaluate("""() => [...document.querySelectorAll(".av-chart")].map((c) => ({
      metric: c.dataset.metric,
      seats: [...c.querySelectorAll("polyline")].map((l) =>
        [Number(l.dataset.seat), l.getAttribute("points").split(" ").length]),
    }))""")
    assert lines == [{"metric": "planets", "seats": [[1, count], [2, count]]},
                     {"metric": "mle", "seats": [[1, count], [2, count]]}]


@pytest.mark.parametrize("seat", [1, 2])
def test_fog_shows_only_what_the_seat_knew(galaxy, seat):
    page, replay = galaxy
    turn = mid_turn(replay)
    frames = galaxy_frames(replay)
    index = next(i for i, f in enumerate(frames) if f["turn"] == turn)
    scrub_to(page, index)
    before = board(page)
    page.locator(".av-fog").select_option(str(seat))
    shown = board(page)
    assert shown != before
    know = knowledge(replay, turn, seat)
    assert {f["id"] for f in shown["fleets"]} == know["fleets"]
    assert all(f["owner"] == seat for f in shown["fleets"])
    for pid, p in shown["planets"].items():
        pid = int(pid)
        assert p["owner"] == know["owners"][pid]
        if pid in know["own"]:
            assert p["known"] == "full"
            expect_planet(p, pid, know["own"][pid])
        elif pid in know["intel"]:
            assert p["known"] == "intel"
            expect_planet(p, pid, know["intel"][pid]["garrison"])
        else:
            assert p["known"] == "none" and p["text"] == [f"P{pid}", "?"]
    marked = page.evaluate("() => [...document.querySelectorAll('[data-battle]')].map((n) => Number(n.dataset.battle))")
    assert set(marked) == know["battles"]
    assert "MLE ?" in shown["header"]
    seats_in_mle_chart = page.evaluate(
        "() => [...document.querySelectorAll('.av-chart[data-metric=mle] polyline')]"
        ".map((l) => Number(l.dataset.seat))")
    assert seats_in_mle_chart == [seat]
    page.locator(".av-fog").select_option("0")
    assert board(page) == before


def fog_snapshots(page, seat: int) -> list[str]:
    """Everything the viewer shows at every turn with fog for `seat`, each planet inspected in turn."""
    page.locator(".av-fog").select_option(str(seat))
    return page.evaluate("""async () => {
      const root = document.querySelector(".armada-viewer");
      const scrub = root.querySelector(".av-scrub");
      const rest = () => new Promise((ok) => requestAnimationFrame(() => ok()));
      const out = [];
      for (let i = 0; i <= Number(scrub.max); i++) {
        scrub.value = String(i);
        scrub.dispatchEvent(new Event("input"));
        await rest();
        out.push(root.querySelector(".av-board").outerHTML + root.querySelector(".av-header").textContent +
                 root.querySelector(".av-charts").innerHTML + root.querySelector(".av-panel").textContent);
        const click = (p) => root.querySelector('.av-planet[data-planet="' + p + '"]')
          .dispatchEvent(new MouseEvent("click", {bubbles: true}));
        for (let p = 1; p <= 16; p++) {
          click(p);
          out.push(root.querySelector(".av-panel").textContent);
          click(p);
        }
      }
      return out;
    }""")


@pytest.mark.parametrize("seat", [1, 2])
def test_fog_view_does_not_change_when_hidden_facts_change(page, replays, tmp_path: Path, seat):
    """Non-interference: change everything GX-19 hides from `seat`; its fog view stays identical,
    while the view without fog does change."""
    replay = replays.load("galaxy")
    changed = fogged_copy(replay, seat)
    pages = {}
    for name, data in (("real", replay), ("changed", changed)):
        path = tmp_path / f"{name}.html"
        path.write_text(offline_html(data), encoding="utf-8")
        pages[name] = path.as_uri()
    ready(page, pages["real"])
    real, real_open = fog_snapshots(page, seat), fog_snapshots(page, 0)
    ready(page, pages["changed"])
    other, other_open = fog_snapshots(page, seat), fog_snapshots(page, 0)
    assert len(real) == len(other) == 17 * len(galaxy_frames(replay))
    for i, (a, b) in enumerate(zip(real, other, strict=True)):
        assert a == b, f"fog view differs in snapshot {i}"
    assert sum(a != b for a, b in zip(real_open, other_open, strict=True)) > len(real) // 2  # the changes show
    assert page.watch.errors == []


def test_hash_opens_at_turn_and_follows_the_player(page, replays):
    url = html_for(replays.galaxy).as_uri()
    ready(page, url + "#t=7")
    root = page.locator(".armada-viewer")
    assert root.get_attribute("data-turn") == "7"
    assert page.locator(".av-counter").text_content().startswith("turn 7 /")
    page.get_by_role("button", name="step forward (right arrow)").click()
    at_rest(page)
    assert page.evaluate("location.hash") == "#t=8"
    assert page.locator(".av-link").get_attribute("href") == "#t=8"
    page.evaluate("location.hash = '#t=3'")
    page.wait_for_function("document.querySelector('.armada-viewer').dataset.turn === '3'")
    assert page.watch.requests == []


def test_mid_game_screenshot_is_not_blank(galaxy):
    page, replay = galaxy
    scrub_to(page, mid_turn(replay))
    page.locator('.av-planet[data-planet="6"]').click()
    png = page.locator(".armada-viewer").screenshot()
    stats = pixel_stats(page, png)
    assert stats["colours"] > 200
    assert stats["background"] < 0.8 * stats["pixels"]
    assert stats["seat1"] > 500 and stats["seat2"] > 500  # both seats' colours are on the board
    save_screenshot(png, "viewer-galaxy.png")


def test_race_names_are_text_not_html(page, replays):
    ready(page, html_for(replays.evil_galaxy).as_uri())
    assert page.locator(".av-name").all_text_contents() == list(EVIL_NAMES)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('img, body > script:not([type])').length") == 1  # the viewer only
    assert page.watch.dialogs == [] and page.watch.requests == [] and page.watch.errors == []
    assert page.title().startswith("Armada replay: galaxy, <img src=x")


@pytest.mark.parametrize("served", ["gzip file", "plain JSON", "Content-Encoding: gzip"])
def test_replay_from_a_url_under_a_strict_csp(page, replays, served):
    """The site's way: external scripts, the replay fetched from a URL, a CSP without 'unsafe-inline'."""
    from armada.viewer import SCRIPTS, VIEWER_DIR

    csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'"
    tags = "".join(f'<script src="/static/{name}"></script>' for name in SCRIPTS)
    html = (f'<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/static/viewer.css">'
            f'</head><body><div data-armada-src="/replays/1.json.gz"></div>{tags}</body></html>')
    w = page.watch
    for name in (*SCRIPTS, "viewer.css"):
        ctype = "text/css" if name.endswith(".css") else "text/javascript"
        w.serve(f"/static/{name}", (VIEWER_DIR / name).read_bytes(), ctype)
    body = replays.galaxy.read_bytes()
    if served == "gzip file":
        w.serve("/replays/1.json.gz", body, "application/gzip")
    elif served == "plain JSON":
        w.serve("/replays/1.json.gz", gzip.decompress(body), "application/json")
    else:
        w.serve("/replays/1.json.gz", body, "application/json", headers={"content-encoding": "gzip"})
    url = w.serve("/matches/1/", html.encode(), "text/html", headers={"content-security-policy": csp})
    ready(page, url + "#t=5")
    root = page.locator(".armada-viewer")
    assert root.get_attribute("data-state") == "ready" and root.get_attribute("data-turn") == "5"
    page.get_by_role("button", name="step forward (right arrow)").click()
    at_rest(page)
    assert root.get_attribute("data-turn") == "6"
    assert w.requests == [] and w.errors == []


def test_keys_belong_to_what_has_the_focus(galaxy):
    """A keyboard trial: on a page that scrolls, Space scrolled nothing (the viewer took it from the page),
    Space on the slowest-turns summary played instead of opening it, and a planet chosen with Enter lost the
    focus. The offline page focuses the viewer, so its keys work from the start."""
    page, _ = galaxy
    root = page.locator(".armada-viewer")
    assert page.evaluate("document.activeElement.classList.contains('armada-viewer')")
    # a page around the viewer that scrolls, with nothing focused: Space, Home and End are the page's
    page.evaluate("""() => { const tall = document.createElement('div'); tall.style.height = '3000px';
                             document.body.appendChild(tall); document.activeElement.blur();
                             window.scrollTo(0, 0); }""")
    page.keyboard.press("Space")
    page.wait_for_function("window.scrollY > 0")
    assert root.get_attribute("data-playing") == "false"
    index = int(root.get_attribute("data-index"))
    page.keyboard.press("ArrowRight")  # the arrows still step
    at_rest(page)
    assert root.get_attribute("data-index") == str(index + 1)
    # a click on the board makes its keys the viewer's
    page.locator(".av-board").click(position={"x": 1, "y": 1})
    page.keyboard.press("Space")
    page.wait_for_function("document.querySelector('.armada-viewer').dataset.playing === 'true'")
    page.keyboard.press("Space")
    at_rest(page)
    # Space on the summary opens it; the viewer does not play
    summary = page.locator("details.av-timing-more summary")
    summary.focus()
    page.keyboard.press("Space")
    assert page.locator("details.av-timing-more").evaluate("d => d.open") is True
    assert root.get_attribute("data-playing") == "false"
    # a slowest turn chosen by keyboard keeps the focus (a mouse's click gives it back to the viewer)
    go = page.locator(".av-timing-go").first
    go.focus()
    page.keyboard.press("Enter")
    at_rest(page)
    assert page.evaluate("document.activeElement.classList.contains('av-timing-go')")
    # a planet chosen with Space is selected, and keeps the focus while the board is drawn anew
    planet = page.locator('.av-planet[data-planet="6"]')
    planet.focus()
    page.keyboard.press("Space")
    assert page.locator(".av-panel").get_attribute("data-planet") == "6"
    assert page.evaluate("document.activeElement.getAttribute('data-planet')") == "6"
    assert root.get_attribute("data-playing") == "false"
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert label.startswith("planet 6, ") and ("battleships" in label or "not known" in label)
    page.keyboard.press("ArrowRight")  # a step redraws the planets: the focus stays on planet 6
    at_rest(page)
    assert page.evaluate("document.activeElement.getAttribute('data-planet')") == "6"
    assert page.get_by_role("button", name="play (space)").count() == 1


RENDERED_PX_JS = """(selector) => [...document.querySelectorAll(selector)].map((t) =>
  parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"""


def test_a_phones_board_shows_the_planets_numbers_large_enough(galaxy):
    """A phone draws the 400-unit board about 300 px wide: the planets' ids and garrisons were 8 px."""
    page, _ = galaxy
    wide = page.evaluate(RENDERED_PX_JS, ".av-planet-id")
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function("document.querySelector('.av-board').getBoundingClientRect().width < 400")
    for selector in (".av-planet-id", ".av-garrison"):
        sizes = page.evaluate(RENDERED_PX_JS, selector)
        assert sizes and min(sizes) >= 10, (selector, sizes)
    assert min(wide) >= 10  # (and a wide board's were, as they are)
    while not page.locator(".av-fleet-label").count():  # the fleets' labels were 7 px (a second phone trial)
        page.keyboard.press("ArrowRight")
        at_rest(page)
    assert min(page.evaluate(RENDERED_PX_JS, ".av-fleet-label")) >= 9
    # the site's match page draws the board 16rem wide on a phone (pages' site.css, to keep its
    # controls on the screen): the fleets' labels were 7.7 px there (a walk)
    page.set_viewport_size({"width": 300, "height": 844})
    page.wait_for_function("document.querySelector('.av-board').getBoundingClientRect().width < 270")
    assert min(page.evaluate(RENDERED_PX_JS, ".av-fleet-label")) >= 8.5
