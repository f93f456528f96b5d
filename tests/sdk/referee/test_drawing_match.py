"""Drawings in a match (issue 27, D-R-16): taken out of the replies before the game reads them, kept per
seat in the outcome, bounded with one note in the bot's log, and never a change to play."""

from __future__ import annotations

import json
import sys
import textwrap

from armada.bot.mothership import MothershipBot, Orders
from armada.drawing import MAX_SHAPES
from armada.games.mothership.orders import check_orders
from armada.logmarks import lines_by_turn
from armada.referee.inprocess import InProcessBot
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot
from armada.referee.rerun import rerun
from armada.replay import game_content, rebuild_states
from armada.starters.galaxy.greedy import Bot as Greedy
from armada.starters.galaxy.prober import Bot as Prober

SHORT = {"max_turns": 8}


class DrawingGreedy(Greedy):
    """Greedy, drawing a lot while it plays: good shapes, bad ones, past the limits."""

    def scout(self, obs):
        self.debug.ring(obs.planets[0], color="cyan")
        self.debug.dot((1.5, 1.5), color="nope")
        self.debug.text("turn", obs.turn)
        return super().scout(obs)

    def command(self, obs, intel, warnings):
        orders = super().command(obs, intel, warnings)
        for order in orders:
            self.debug.arrow(order.from_, order.to, color="red")
        self.debug.label(16, "their home")
        self.debug.dot(99)  # no such planet: ignored by the referee
        for _ in range(MAX_SHAPES):
            self.debug.dot(6)  # past the turn's limit with the scout's two
        return orders


def test_drawing_changes_nothing_in_the_game():
    plain = play_match("galaxy", {1: InProcessBot(Greedy, "a"), 2: InProcessBot(Prober)}, seed=5, config=SHORT)
    drawn = play_match("galaxy", {1: InProcessBot(DrawingGreedy, "a"), 2: InProcessBot(Prober)}, seed=5, config=SHORT)
    assert drawn.players[0].exceptions == 0
    assert game_content(drawn.replay) == game_content(plain.replay)
    assert "debug" not in drawn.replay and "debug" not in json.dumps(drawn.replay["steps"])
    rebuild_states(drawn.replay)
    assert [p.status for p in drawn.players] == ["ok", "ok"]
    turns = drawn.players[0].debug["turns"]
    assert [t["turn"] for t in turns] == list(range(1, drawn.result.turns + 1))
    first = turns[0]
    assert first["text"] == "turn 1"
    assert first["shapes"][:2] == [{"kind": "ring", "at": 1, "color": "cyan"},
                                   {"kind": "dot", "at": [1.5, 1.5], "color": "white"}]
    assert {"kind": "label", "at": 16, "text": "their home", "color": "white"} in first["shapes"]
    assert all(len(t["shapes"]) == MAX_SHAPES - 1 for t in turns)  # 500 looked at, the bad one among them
    assert drawn.players[1].debug == {"turns": []}
    assert "debug" not in drawn.players[0].to_dict() and "debug" not in drawn.summary()["players"][0]
    notes = [line for line in drawn.players[0].log.splitlines() if line.startswith("[armada] drawing, turn ")]
    assert notes[0].startswith("[armada] drawing, turn 1: 1 shape ignored (first: shapes[")
    assert "]: 'at' names nothing on the board (99)); " in notes[0]
    assert notes[0].endswith(" dropped past the limit of 500 a turn")
    assert "[armada] drawing: " in drawn.players[0].log  # the library's own line: past 500 in one request
    assert len(notes) == drawn.result.turns  # one line per turn that lost something, no more
    assert lines_by_turn(drawn.players[0].log)[1][-1] == notes[0]  # under the turn's own request mark


class DrawingRace(MothershipBot):
    def orders(self, config):
        self.debug.ring("mothership-2", color="red")
        self.debug.arrow(f"fighter-{self.seat}-1", "mothership-2")
        self.debug.label([0.5, 0.1], "all in")
        self.debug.text("budget", config.total_points)
        return Orders.uniform(40, 7, 5, [2, 2, 3])


class PlainRace(DrawingRace):
    def orders(self, config):
        return Orders.uniform(40, 7, 5, [2, 2, 3])


def test_a_debug_key_is_never_an_invalid_mothership_order():
    orders = Orders.uniform(40, 7, 5, [2, 2, 3]).to_dict()
    assert check_orders({**orders, "debug": "anything at all"}) == []
    assert check_orders({**orders, "debugs": 1}) != []  # a typo stays invalid (D-MD-2)
    drawn = play_match("mothership", {1: InProcessBot(DrawingRace, "a"), 2: InProcessBot(PlainRace, "b")}, seed=1)
    plain = play_match("mothership", {1: InProcessBot(PlainRace, "a"), 2: InProcessBot(PlainRace, "b")}, seed=1)
    assert [p.status for p in drawn.players] == ["ok", "ok"]
    assert game_content(drawn.replay) == game_content(plain.replay)
    assert drawn.players[0].debug == {"turns": [{"turn": 0, "text": "budget 100", "shapes": [
        {"kind": "ring", "at": "mothership-2", "color": "red"},
        {"kind": "arrow", "at": "fighter-1-1", "to": "mothership-2", "color": "white"},
        {"kind": "label", "at": [0.5, 0.1], "text": "all in", "color": "white"}]}]}


def test_a_rerun_of_a_drawing_bot_agrees():
    drawn = play_match("mothership", {1: InProcessBot(DrawingRace), 2: InProcessBot(PlainRace)}, seed=1)
    assert rerun(drawn.replay, 1, InProcessBot(DrawingRace)).ok
    galaxy = play_match("galaxy", {1: InProcessBot(DrawingGreedy), 2: InProcessBot(Prober)}, seed=5, config=SHORT)
    assert rerun(galaxy.replay, 1, InProcessBot(DrawingGreedy)).ok


BARE = textwrap.dedent('''
    import json, sys
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "end":
            break
        reply = {"id": msg["id"]}
        if msg["type"] == "scout":
            reply["probes"] = []
            reply["debug"] = {"shapes": [{"kind": "dot", "at": 5}] * 600, "text": "x" * 20000}
        elif msg["type"] == "command":
            reply["fleets"] = []
            reply["debug"] = ["not", "an", "object", float("nan")]  # json writes NaN: fine in a drawing
        print(json.dumps(reply), flush=True)
''')


def test_a_process_bot_past_the_limits_gets_notes_in_its_log(tmp_path):
    script = tmp_path / "bare.py"
    script.write_text(BARE, encoding="utf-8")
    bots = {seat: ProcessBot([sys.executable, str(script)], label=f"bare{seat}") for seat in (1, 2)}
    outcome = play_match("galaxy", bots, seed=2, config={"max_turns": 2})
    assert [p.status for p in outcome.players] == ["ok", "ok"]
    log = outcome.players[0].log.splitlines()
    assert log[:3] == [
        "[armada] --- request 1: scout, turn 1 ---",
        "[armada] drawing, turn 1: 100 shapes dropped past the limit of 500 a turn; "
        "text clipped to 16384 bytes a turn",
        "[armada] --- request 2: command, turn 1 ---",
    ]
    assert log[3] == '[armada] drawing, turn 1: debug is not an object (["not", "an", "object", "unacc): ignored'
    turns = outcome.players[0].debug["turns"]
    assert [(t["turn"], len(t["shapes"]), len(t["text"])) for t in turns] == [(1, 500, 16384), (2, 500, 16384)]


def test_a_session_leaves_a_drawing_out_of_the_orders_and_the_replay():
    from armada.api import Session

    session = Session("mothership", seed=1)
    orders = Orders.uniform(40, 7, 5, [2, 2, 3]).to_dict()
    session.step({1: {**orders, "debug": {"shapes": [{"kind": "dot", "at": "mothership-1"}]}}, 2: orders})
    replay = session.replay()
    assert replay["steps"][0]["answers"]["1"] == orders and "faults" not in replay["steps"][0]
