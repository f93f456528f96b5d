"""Mothership Down starter bots: legal orders, reproducible, and clearly ordered in strength."""

import importlib
import statistics
import sys
from pathlib import Path

import pytest

import armada.starters.mothership as starters_pkg
from armada.games.mothership import Race, check_orders, league, parse_config, random_orders
from armada.games.rng import Rng
from armada.referee.connection import BotConnection
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot

STARTERS = ("random", "greedy", "balanced")
FOLDER = Path(starters_pkg.__file__).parent


def starter_orders(name, seat=1, config=None):
    module = importlib.import_module(f"armada.starters.mothership.{name}")
    bot = module.Bot()
    bot.on_init({"type": "init", "seat": seat, "config": config or {}})
    return bot.answer({"type": "orders", "id": 1})


@pytest.mark.parametrize("name", STARTERS)
@pytest.mark.parametrize(
    "config",
    [{}, {"total_points": 11}, {"total_points": 250}, {"fighter_attack": [3, 4], "max_pattern": 1},
     {"mothership_defence": [30, 50], "total_points": 60}],
)
def test_starters_always_give_legal_orders(name, config):
    """MD-1 / MD-2: every starter adapts to the config it is given."""
    assert check_orders(starter_orders(name, 1, config), parse_config(config)) == []


def test_random_starter_is_reproducible_from_seat_and_config():
    assert starter_orders("random", 1) == starter_orders("random", 1)
    assert starter_orders("random", 1) != starter_orders("random", 2)
    assert starter_orders("random", 1) != starter_orders("random", 1, {"total_points": 99})


def test_small_league_of_the_starters_orders_them_by_strength():
    """MD-10 league of the three starters (both random seats): balanced, greedy, then the random ones."""
    races = [Race("random-1", starter_orders("random", 1), 0), Race("random-2", starter_orders("random", 2), 1),
             Race("greedy", starter_orders("greedy"), 2), Race("balanced", starter_orders("balanced"), 3)]
    table = league(races)
    assert [r.race.name for r in table][:2] == ["balanced", "greedy"]
    assert table[0].points > table[1].points > table[2].points


def test_starters_against_a_field_of_random_races():
    """In a field of 100 random races, balanced is near the top, greedy in the top fifth, random in the middle."""
    rng = Rng(1000)
    races = [Race("balanced", starter_orders("balanced")), Race("greedy", starter_orders("greedy"))]
    races += [Race(f"random-{i}", random_orders(rng)) for i in range(100)]
    table = league(races)
    where = {r.race.name: r for r in table}
    mean_random = statistics.mean(r.points for r in table if r.race.name.startswith("random"))
    assert where["balanced"].position <= 3
    assert where["greedy"].position <= 20
    assert where["balanced"].points > where["greedy"].points > 1.5 * mean_random


def test_a_real_match_between_starter_processes_md3():
    """Two starter scripts as processes through the referee; MD-3: names come from the handshake."""
    bots: dict[int, BotConnection] = {1: ProcessBot([sys.executable, str(FOLDER / "balanced.py")], label="balanced"),
            2: ProcessBot([sys.executable, str(FOLDER / "greedy.py")], label="greedy")}
    outcome = play_match("mothership", bots, seed=1)
    assert [p.status for p in outcome.players] == ["ok", "ok"]
    assert [p.name for p in outcome.players] == ["Balanced Brigade", "Greedy Guardians"]
    assert outcome.result.winner == 1 and outcome.result.outcome in ("destruction", "damage")
    assert outcome.result.turns >= 1


def test_random_starter_runs_as_a_process():
    """The file is named like the standard `random` module; it must still run as a script."""
    bots: dict[int, BotConnection] = {1: ProcessBot([sys.executable, str(FOLDER / "random.py")], label="random"),
                                      2: ProcessBot([sys.executable, str(FOLDER / "random.py")], label="random")}
    outcome = play_match("mothership", bots, seed=2)
    assert [p.status for p in outcome.players] == ["ok", "ok"]
    assert [p.name for p in outcome.players] == ["Random Raiders", "Random Raiders"]
    assert outcome.replay["steps"][0]["answers"]["1"] != outcome.replay["steps"][0]["answers"]["2"]
