"""The referee with the real engines and starter bots (mothership, galaxy)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from armada.games.registry import get_game
from armada.logmarks import strip_marks
from armada.referee.match import Limits, default_limits, play_match
from armada.referee.process_bot import ProcessBot
from armada.replay import game_content, rebuild_states, replay_bytes
from tests.sdk.referee.conftest import hostile

STARTERS = Path(__file__).resolve().parents[3] / "sdk" / "armada" / "starters"
LIMITS = Limits(init_ms=5000, turn_ms=1000, bank_ms=2000)


def starter(game: str, name: str) -> ProcessBot:
    return ProcessBot.for_script(STARTERS / game / f"{name}.py", label=name)


def raw_bot(tmp_path: Path, body: str) -> ProcessBot:
    """A bot speaking the raw protocol: `body` computes `reply` from `msg` (init is answered for it)."""
    script = tmp_path / "raw_bot.py"
    script.write_text("import json, sys\nfor line in sys.stdin:\n    msg = json.loads(line)\n"
                      "    print(line.strip(), file=sys.stderr, flush=True)\n"
                      "    if msg['type'] == 'end':\n        break\n"
                      "    if msg['type'] == 'init':\n        reply = {'name': 'Raw'}\n    else:\n"
                      + textwrap.indent(textwrap.dedent(body), " " * 8)
                      + "    reply['id'] = msg['id']\n    print(json.dumps(reply), flush=True)\n")
    return ProcessBot([sys.executable, str(script)], cwd=str(tmp_path), label="raw")


def test_default_limits():
    assert default_limits("mothership") == Limits(30000, 2000, 10000)
    assert default_limits("galaxy") == Limits(30000, 1000, 10000)
    assert default_limits(get_game("mothership")).turn_ms == 2000
    with pytest.raises(ValueError, match="turn_ms must be at least 1"):
        Limits(turn_ms=0)


def test_the_bank_pays_only_time_beyond_the_turn_and_never_goes_below_zero():
    """docs/protocol.md, "Time": a reply's time past turn_ms comes out of the bank; a reply measured later
    than the whole budget (it arrived at the edge) empties the bank, never overdraws it, so the next
    request's bank_ms is 0 and its bound is turn_ms, not less."""
    from armada.referee.clock import BankClock

    clock = BankClock(Limits(init_ms=5000, turn_ms=100, bank_ms=300))
    assert (clock.budget_ms(), clock.left_ms()) == (400, 300)
    clock.charge(100)  # within the turn: the bank is untouched
    assert clock.left_ms() == 300
    clock.charge(250.5)
    assert clock.left_ms() == 149 and clock.budget_ms() == pytest.approx(249.5)
    clock.charge(1000)  # far past the whole budget
    assert clock.left_ms() == 0 and clock.budget_ms() == 100
    clock = BankClock(Limits(init_ms=5000, turn_ms=100, bank_ms=300))
    clock.spend_all()
    assert (clock.left_ms(), clock.budget_ms()) == (0, 100)


def test_mothership_starters_play_a_battle():
    outcome = play_match("mothership", {1: starter("mothership", "greedy"), 2: starter("mothership", "balanced")},
                         seed=3, limits=LIMITS)
    summary = outcome.summary()
    assert list(summary) == ["game", "seed", "turns", "winner", "outcome", "players"]
    assert summary["game"] == "mothership" and summary["seed"] == 3
    assert [p["status"] for p in summary["players"]] == ["ok", "ok"]
    assert list(summary["players"][0]) == ["seat", "name", "status", "detail", "exceptions", "warnings", "time",
                                          "memory_peak_mib"]
    assert summary["outcome"] in ("destruction", "damage", "draw")
    assert len(outcome.replay["steps"]) == 1 and outcome.replay["steps"][0]["phase"] == "orders"
    rebuild_states(outcome.replay)


def test_init_message_follows_the_protocol(tmp_path):
    bot = raw_bot(tmp_path, "reply = {'mothership': {'defence': 0}, 'fighters': []}\n")
    config = {"total_points": 100}
    outcome = play_match("mothership", {1: bot, 2: starter("mothership", "balanced")}, seed=5,
                         config=config, limits=LIMITS)
    received = [json.loads(line) for line in strip_marks(outcome.players[0].log).splitlines()]
    init, orders, end = received
    engine = get_game("mothership")
    assert init == {"type": "init", "id": 0, "protocol": 1, "game": "mothership", "seat": 1,
                    "config": engine.config_to_dict(engine.parse_config(config)), "limits": LIMITS.to_dict()}
    assert orders == {"type": "orders", "id": 1, "bank_ms": 2000}
    assert end["type"] == "end" and end["id"] == 2 and end["result"] == outcome.result.to_dict()
    # MD-1 broken orders: status invalid (MD-12), the other side wins by forfeit
    assert outcome.players[0].status == "invalid" and outcome.players[0].name == "Raw"
    assert (outcome.result.winner, outcome.result.outcome, outcome.result.turns) == (2, "forfeit", 0)


def test_galaxy_starters_are_deterministic_and_rebuild():
    def once():
        return play_match("galaxy", {1: starter("galaxy", "greedy"), 2: starter("galaxy", "prober")},
                          seed=21, limits=LIMITS)

    first, second = once(), once()
    assert [p.status for p in first.players] == ["ok", "ok"]
    assert first.result.outcome in ("elimination", "turn_limit", "draw")
    assert replay_bytes(game_content(first.replay)) == replay_bytes(game_content(second.replay))  # GX-23
    frames = rebuild_states(first.replay)
    assert len(frames) >= first.result.turns


def test_galaxy_silent_bot_forfeits_in_turn_3():
    # ids: 0 init, 1 scout t1, 2 command t1, 3 scout t2, 4 command t2, 5 scout t3
    fast = Limits(init_ms=5000, turn_ms=200, bank_ms=200)
    outcome = play_match("galaxy", {1: starter("galaxy", "greedy"), 2: hostile("silent", 5)}, seed=4, limits=fast)
    assert [p.status for p in outcome.players] == ["ok", "timeout"]
    assert "scout (id 5, turn 3)" in outcome.players[1].detail
    assert (outcome.result.winner, outcome.result.outcome, outcome.result.turns) == (1, "forfeit", 2)
    assert len(outcome.replay["steps"]) == 4


def test_galaxy_badly_shaped_reply_is_protocol(tmp_path):
    bot = raw_bot(tmp_path, "reply = {'probes': 'all of them'}\n")
    outcome = play_match("galaxy", {1: bot, 2: starter("galaxy", "greedy")}, seed=4, limits=LIMITS)
    assert outcome.players[0].status == "protocol"
    assert outcome.result.winner == 2 and outcome.result.outcome == "forfeit"


def test_galaxy_from_a_dumped_state():
    engine = get_game("galaxy")
    start = engine.dump_state(engine.initial_state(8, engine.parse_config(None)))
    outcome = play_match("galaxy", {1: starter("galaxy", "greedy"), 2: starter("galaxy", "greedy")},
                         seed=8, limits=LIMITS, start_state=start)
    assert outcome.replay["start_state"] == json.loads(json.dumps(start))
    assert [p.status for p in outcome.players] == ["ok", "ok"]
    rebuild_states(outcome.replay)
