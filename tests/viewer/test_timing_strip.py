"""The timing strip under the viewer's timeline (issue 27): time per turn, timeouts marked, slowest turns."""

from __future__ import annotations

import pytest

from armada.cli.main import main
from armada.replay import read_replay
from armada.viewer import offline_html
from tests.viewer.conftest import at_rest, ready


def test_strip_marks_timeouts_lists_the_slowest_and_reads_older_replays(page, tmp_path):
    path = tmp_path / "g.json.gz"
    assert main(["play", "builtin:greedy", "builtin:random", "--seed", "3", "--config", '{"max_turns": 8}',
                 "--replay", str(path), "--json"]) == 0
    replay = read_replay(path)
    seats = replay["timings"]["seats"]
    # planted: seat 1's command of turn 5 (request 10) took 900 ms; seat 2 timed out at turn 7's scout (13)
    seats["1"]["ms"][9] = 20.0  # its scout, planted too: a measured one varies with the machine's load
    seats["1"]["ms"][10] = 900.0
    seats["1"]["bank_ms"][10] = 9100
    seats["2"]["timeouts"] = [13]
    # the inits planted as well: a measured 198.5 rounds to 199 in the page but to 198 in Python
    seats["1"]["ms"][0] = 150.0
    seats["2"]["ms"][0] = 42.5
    page_path = tmp_path / "strip.html"
    page_path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, page_path.as_uri() + "#t=0")
    now = page.locator(".av-timing-now").text_content()
    # turn 0 had no turn request, only init: said so, not "0.0 ms"; whole ms from 100 up, tenths below
    assert "Greedy: init 150 ms, bank 10000 ms; Random: init 42.5 ms" in now and "0.0 ms" not in now
    rows = page.locator(".av-timing-row")
    assert rows.count() == 2
    assert page.locator(".av-timing-row[data-seat='2'] .av-timing-timeout").count() == 1
    assert page.locator(".av-timing-row[data-seat='1'] .av-timing-timeout").count() == 0
    assert page.locator(".av-timing-row[data-seat='1']").get_attribute("data-timeouts") == "0"
    items = page.locator(".av-timing-slowest li").all_text_contents()
    assert "turn 7" in items[0] and "timed out" in items[0]  # timeouts first
    assert "turn 5 (scout + command): 920 ms" in items[1] and "bank 9100 ms left" in items[1]
    assert page.locator("details.av-timing-more summary").text_content() == "slowest turns (init aside)"
    page.locator("details.av-timing-more summary").click()
    page.locator(".av-timing-go").nth(1).click()
    at_rest(page)
    assert page.locator(".armada-viewer").get_attribute("data-turn") == "5"
    assert "time at turn 5" in page.locator(".av-timing-now").text_content()
    assert "bank 9100 ms" in page.locator(".av-timing-now").text_content()
    page.keyboard.press("ArrowRight")  # the keys still step after a click in the list
    at_rest(page)
    assert page.locator(".armada-viewer").get_attribute("data-turn") == "6"

    # an older replay: a list of milliseconds per seat; its timed-out seat's last request is marked
    replay["timings"] = {"1": seats["1"]["ms"], "2": seats["2"]["ms"]}
    replay["seats"][1]["status"] = "timeout"
    old_path = tmp_path / "old.html"
    old_path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, old_path.as_uri() + "#t=0")
    assert page.locator(".av-timing-row").count() == 2
    assert page.locator(".av-timing-row[data-seat='2'] .av-timing-timeout").count() == 1
    assert "bank" not in page.locator(".av-timing-now").text_content()
    assert page.watch.errors == [] and page.watch.requests == []


def failing_at(kind: str, turn: int, action: str) -> str:
    """A Galaxy bot's main.py that answers every request but `kind` of `turn`, where it runs
    `action` (a sleep past its time, or an exit) instead."""
    return f'''
import json, sys, time
for line in sys.stdin:
    request = json.loads(line)
    kind = request["type"]
    if kind == "end":
        break
    if kind == "{kind}" and request["turn"] == {turn}:
        {action}
    reply = {{"scout": {{"probes": []}}, "command": {{"fleets": []}}}}.get(kind, {{}})
    print(json.dumps({{"id": request["id"], **reply}}), flush=True)
'''


#: Past turn_ms and the empty bank on turn 4's command: the match ends on that request.
SLOW_AT_COMMAND = failing_at("command", 4, "time.sleep(2)")


def test_a_timeout_in_the_middle_of_a_turn_is_shown_at_its_own_turn(page, tmp_path):
    """A seat timing out on turn 4's command: the board shows turn 3 (the last one played), and the
    strip names turn 4's command, not "time at turn 3" (a new user's trial)."""
    import armada
    from armada.referee.clock import Limits

    bot = tmp_path / "slow"
    bot.mkdir()
    (bot / "main.py").write_text(SLOW_AT_COMMAND)
    outcome = armada.run("galaxy", ["builtin:random", str(bot)], seed=2, config={"max_turns": 8},
                         limits=Limits(init_ms=10000, turn_ms=300, bank_ms=0))
    replay = outcome.replay
    assert replay["seats"][1]["status"] == "timeout" and "command (id 8, turn 4)" in replay["seats"][1]["detail"]
    assert replay["steps"][-1]["turn"] == 4 and replay["timings"]["seats"]["2"]["timeouts"] == [8]
    page_path = tmp_path / "timeout.html"
    page_path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, page_path.as_uri() + "#t=3")
    assert page.locator(".armada-viewer").get_attribute("data-turn") == "3"  # the last board played
    now = page.locator(".av-timing-now").text_content()
    assert "timed out at turn 4 (scout + command)" in now, now  # the turn's answered scout with it
    title = page.locator(".av-timing-row[data-seat='2'] .av-timing-timeout title").text_content()
    assert title.endswith("timeout at turn 4 (scout + command)") and title.startswith("turn 3: ")  # its own kept
    page.locator("details.av-timing-more summary").click()
    first = page.locator(".av-timing-slowest li").first.text_content()
    assert "turn 4 (scout + command)" in first and "timed out" in first
    assert page.watch.errors == []


def test_mothership_rounds_after_the_orders_say_no_request(page, replays, tmp_path):
    """A Mothership bot is asked once (its orders, shown at round 0): the later rounds had no request, and the
    strip's line says so instead of a time of "0.0 ms"."""
    replay = replays.load("mothership")
    page_path = tmp_path / "ms.html"
    page_path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, page_path.as_uri() + "#t=0")
    assert "no request" not in page.locator(".av-timing-now").text_content()
    ready(page, page_path.as_uri() + "#t=2")
    now = page.locator(".av-timing-now").text_content()
    assert now.startswith("time at round 2") and now.count("no request") == 2 and "0.0 ms" not in now


def test_an_init_the_bot_never_answered_is_not_shown_as_its_init_time(page, tmp_path):
    """An RL competitor's trial: a bot whose model file was corrupt crashed while loading it; the
    version's page said "init not answered", the strip under the viewer "init 469 ms"."""
    import armada

    bot = tmp_path / "broken"
    bot.mkdir()
    (bot / "main.py").write_text("import time\ntime.sleep(0.2)\nraise SystemExit('the model file is damaged')\n")
    replay = armada.run("galaxy", [str(bot), "builtin:random"], seed=2, config={"max_turns": 4}).replay
    assert replay["seats"][0]["status"] == "crashed" and "init (id 0)" in replay["seats"][0]["detail"]
    page_path = tmp_path / "crash.html"
    page_path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, page_path.as_uri() + "#t=0")
    now = page.locator(".av-timing-now").text_content()
    assert "init not answered (" in now and " until the bot stopped)" in now, now
    assert "Random: init " in now and "Random: init not answered" not in now  # the other seat answered
    assert page.watch.errors == []




@pytest.mark.parametrize(("kind", "ended"), [("scout", "turn 3 (scout)"), ("command", "turn 3 (scout + command)")])
def test_the_turn_a_match_ended_in_keeps_its_own_time(page, tmp_path, kind, ended):
    """A trial: a bot crashed on turn 3's scout (41.7 ms) after the board of turn 2; the strip said
    "42.4 ms at turn 3 (scout)", turn 2's 0.7 ms added to it; crashing on turn 3's command, turn 3's
    scout was still added to turn 2. Each turn keeps its own time now, the ended one all of its own."""
    import armada

    bot = tmp_path / "crash"
    bot.mkdir()
    (bot / "main.py").write_text(failing_at(kind, 3, 'time.sleep(0.05); raise SystemExit("crashed on purpose")'))
    replay = armada.run("galaxy", ["builtin:random", str(bot)], seed=2, config={"max_turns": 8}).replay
    assert replay["seats"][1]["status"] == "crashed" and f"{kind} (id" in replay["seats"][1]["detail"]
    ms = replay["timings"]["seats"]["2"]["ms"]
    tail = [0.3, 0.4, 41.7] if kind == "scout" else [0.3, 0.4, 1.3, 41.7]  # turn 2's two, then turn 3's
    ms[1:] = [0.1] * (len(ms) - 1 - len(tail)) + tail
    page_path = tmp_path / "crash.html"
    page_path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, page_path.as_uri() + "#t=2")  # the last board: after turn 2
    now = page.locator(".av-timing-now").text_content()
    spent = "41.7 ms" if kind == "scout" else "43.0 ms"
    assert "time at turn 2" in now and "0.7 ms, bank " in now and f"; then {spent} at {ended}" in now, now
    title = page.locator(".av-timing-row[data-seat='2'] .av-timing-bar title").last.text_content()
    assert title == f"turn 2: 0.7 ms; {ended}: {spent}"
    items = page.locator(".av-timing-slowest li").all_text_contents()
    assert any(f"{ended}: {spent}" in item for item in items), items
    assert any("turn 2 (scout + command): 0.7 ms" in item for item in items), items
    assert page.watch.errors == []


def test_two_seats_of_the_same_name_are_told_apart(page, tmp_path):
    """A bot against a copy of itself (both `Greedy`): every name the strip gives says which seat it is."""
    path = tmp_path / "same.json.gz"
    assert main(["play", "builtin:greedy", "builtin:greedy", "--seed", "3", "--config", '{"max_turns": 6}',
                 "--replay", str(path), "--json"]) == 0
    replay = read_replay(path)
    replay["timings"]["seats"]["2"]["ms"][3] = 700.0  # seat 2's scout of turn 2: the slowest
    page_path = tmp_path / "same.html"
    page_path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, page_path.as_uri() + "#t=2")
    names = page.locator(".av-timing-name").all_text_contents()
    assert names == ["Greedy (seat 1)", "Greedy (seat 2)"]
    assert page.locator(".av-timing-row[data-seat='2'] .av-timing-name").get_attribute("title") == "Greedy (seat 2)"
    now = page.locator(".av-timing-now").text_content()
    assert "Greedy (seat 1): " in now and "Greedy (seat 2): " in now
    first = page.locator(".av-timing-slowest li").first.text_content()
    assert first.startswith("Greedy (seat 2), turn 2 ")
    assert page.watch.errors == [] and page.watch.requests == []
