"""The offline Mothership Down viewer: rounds, shots, defence bars, race names and the result's points."""

from __future__ import annotations

import pytest

from tests.viewer.conftest import EVIL_NAMES, at_rest, html_for, ready, save_screenshot
from tests.viewer.helpers import pixel_stats

pytestmark = pytest.mark.browser

FIELD_JS = """() => ({
  ships: [...document.querySelectorAll(".av-mothership")].map((g) =>
    [Number(g.dataset.seat), Number(g.dataset.defence)]),
  fighters: [...document.querySelectorAll(".av-fighter")].map((g) =>
    [Number(g.dataset.seat), Number(g.dataset.fighter), Number(g.dataset.attack), Number(g.dataset.defence)]),
  shots: [...document.querySelectorAll(".av-shot")].map((g) => [Number(g.dataset.seat), Number(g.dataset.fighter),
    Number(g.dataset.strength), g.dataset.target, g.dataset.destroyed === "true"]),
  bars: document.querySelectorAll(".av-defence-bar").length,
})"""


def field_after(replay, k):
    """Motherships, fighters and shots after round k (0: the orders), computed from the replay."""
    step = replay["steps"][0]
    if k == 0:
        sides = [(s["seat"], s["orders"]["mothership"]["defence"], s["orders"]["fighters"], [])
                 for s in step["frame"]["sides"]]
    else:
        sides = [(s["seat"], s["mothership"], s["fighters"], s["shots"]) for s in step["events"][k - 1]["sides"]]
    return {
        "ships": [[seat, ship] for seat, ship, _, _ in sides],
        "fighters": [[seat, i + 1, f["attack"], f["defence"]] for seat, _, fs, _ in sides for i, f in enumerate(fs)],
        "shots": [[seat, s["fighter"], s["strength"], s["target"], s["destroyed"]]
                  for seat, _, _, shots in sides for s in shots],
        "bars": 2 + 2 * 5,
    }


def test_rounds_shots_and_result(page, replays):
    replay = replays.load("mothership")
    ready(page, html_for(replays.mothership).as_uri())
    rounds = len(replay["steps"][0]["events"])
    assert page.locator(".av-counter").text_content() == f"round 0 / {rounds}"
    assert page.locator(".av-name").all_text_contents() == ["Greedy Guardians", "Balanced Brigade"]
    # the steps read as steps: angle quotes (U+2039, U+203A), not "▶|" (read as "to the end") beside "▶" (play)
    assert page.get_by_role("button", name="step back (left arrow)").text_content() == "\u2039"
    assert page.get_by_role("button", name="step forward (right arrow)").text_content() == "\u203a"
    for k in range(rounds + 1):
        if k:
            page.get_by_role("button", name="step forward (right arrow)").click()
            at_rest(page)
        assert page.evaluate(FIELD_JS) == field_after(replay, k), f"round {k}"
        assert page.locator(".av-round").text_content().startswith("Round " if k else "Before the battle")
    result = page.locator(".av-result").text_content()
    assert result.startswith("Balanced Brigade (seat 2) wins on damage: 2 points to 0")
    assert "motherships left 25 : 10" in result
    orders = page.locator(".av-orders").all_text_contents()
    assert "orders as given: mothership defence 30" in orders[0] and "[3]" in orders[0]
    assert page.locator(".av-round").text_content().endswith("on the board: its shots, and the fighters and "
                                                             "motherships after it.")  # not the orders' heading
    png = page.locator(".armada-viewer").screenshot()
    page.get_by_role("button", name="step back (left arrow)").click()
    at_rest(page)
    assert page.locator(".av-result").text_content() == ""
    stats = pixel_stats(page, png)
    assert stats["colours"] > 100 and stats["background"] < 0.8 * stats["pixels"]
    assert stats["seat1"] > 300 and stats["seat2"] > 300
    save_screenshot(png, "viewer-mothership.png")
    assert page.watch.requests == [] and page.watch.errors == [] and page.watch.dialogs == []


def test_destruction_is_three_points_and_next_hit(page, replays):
    ready(page, html_for(replays.destruction).as_uri())
    page.locator(".av-next").click()
    at_rest(page)
    assert page.locator(".armada-viewer").get_attribute("data-turn") == "1"  # round 1 destroys every fighter
    page.locator(".av-field").click()  # keys typed on a button are the button's; on the field they are the viewer's
    page.keyboard.press("End")
    at_rest(page)
    assert page.locator(".av-result").text_content().startswith("Hammer (seat 1) wins by destruction: 3 points to 0")
    assert page.evaluate(FIELD_JS)["ships"][1][1] <= 0
    # the shot credited with the destruction carries both marks, as `armada replay` writes it (a trial)
    labels = page.evaluate("""() => [...document.querySelectorAll(".av-shot")].map((g) =>
      [g.dataset.target, g.dataset.destroyed, g.querySelector(".av-shot-label").textContent])""")
    sinking = [label for target, destroyed, label in labels if target == "mothership" and destroyed == "true"]
    assert len(sinking) == 1 and sinking[0].endswith("Mx"), labels
    assert page.locator('.av-mothership[data-seat="2"] .av-ms-value').text_content() == "0"


def test_race_names_run_no_script(page, replays):
    ready(page, html_for(replays.evil_mothership).as_uri())
    assert page.locator(".av-name").all_text_contents() == list(EVIL_NAMES)
    assert EVIL_NAMES[1] in page.locator(".av-orders").nth(1).text_content()
    page.keyboard.press("End")
    at_rest(page)
    assert page.locator(".av-result").text_content().startswith(EVIL_NAMES[1])
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    assert page.watch.dialogs == [] and page.watch.requests == [] and page.watch.errors == []


def test_a_sites_replay_shows_the_sites_bot_names_offline(page, replays, tmp_path):
    """A replay the site stored names each seat's bot (`bot`): offline, the viewer shows it, the race's own
    name kept as "played as" (as on the site's match page)."""
    from armada.replay import write_replay

    replay = replays.load("mothership")
    replay["seats"][0]["bot"] = "alpha <b>"
    path = tmp_path / "site.json.gz"
    write_replay(replay, path)
    ready(page, html_for(path).as_uri())
    names = page.locator(".av-name")
    assert names.all_text_contents() == ["alpha <b>", "Balanced Brigade"]  # as text, never as markup
    assert names.first.get_attribute("title") == "played as Greedy Guardians"
    assert names.nth(1).get_attribute("title") is None


RENDERED_PX_JS = """(selector) => [...document.querySelectorAll(selector)].map((t) =>
  parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"""


def test_a_phones_field_shows_its_labels_large_enough(page, replays):
    """A phone draws the 600-unit field about 340 px wide: its labels were 6 px (a phone trial)."""
    ready(page, html_for(replays.mothership).as_uri())
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function("document.querySelector('.av-field').getBoundingClientRect().width < 400")
    page.get_by_role("button", name="step forward (right arrow)").click()
    at_rest(page)
    for selector in (".av-ms-label", ".av-fighter-label", ".av-shot-label"):
        sizes = page.evaluate(RENDERED_PX_JS, selector)
        assert sizes and min(sizes) >= 8.5, (selector, sizes)
