"""`armada league`: orders asked once per race (MD-11), the MD-10 table, faulty races left out (MD-12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.cli.main import main
from armada.games.mothership import Race, league
from tests.sdk.cli.bots import FIXED_MOTHERSHIP, write_bot

BAD = '''
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "end":
        break
    r = {"id": m["id"]}
    if m["type"] == "orders":
        r.update({"mothership": {"defence": 60}, "fighters": []})
    print(json.dumps(r), flush=True)
'''


def test_league_table_matches_the_engine_league(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ziltoid = str(write_bot(tmp_path / "zil", FIXED_MOTHERSHIP))
    bad = str(write_bot(tmp_path / "bad", BAD))
    code = main(["league", "builtin:greedy", ziltoid, "builtin:balanced", bad, "builtin:random", "--seed", "3",
                 "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    assert [r["race"] for r in data["left_out"]] == ["bad"]
    assert data["left_out"][0]["status"] == "invalid" and "got 60" in data["left_out"][0]["detail"]
    table = data["table"]
    assert len(table) == 4 and all(r["played"] == 3 for r in table)
    assert sum(r["points"] for r in table) in range(6 * 2, 6 * 3 + 1)  # 6 battles, 2 or 3 points each
    # the same table as the engine's league over the orders the races gave (MD-10)
    import importlib

    import armada
    from armada.bot.mothership import Orders

    def starter(name: str) -> dict:
        bot = importlib.import_module(f"armada.starters.mothership.{name}").Bot()
        bot.on_init({"type": "init", "seat": 1, "config": {}})
        return Orders.from_dict(bot.answer({"type": "orders", "id": 1})).to_dict()

    fixed = {"mothership": {"defence": 40}, "fighters": [{"attack": 7, "defence": 5, "pattern": [2, 2, 3]}] * 5}
    # race 4 (from 0) was asked with seed 3 + 4 in seat 1: the same ARMADA_BOT_SEED as this run
    random_orders = armada.run("mothership", ["builtin:random", "builtin:balanced"], seed=7).replay
    names = ["Greedy Guardians (builtin:greedy)", "Ziltoid (zil)", "Balanced Brigade (builtin:balanced)",
             "Random Raiders (builtin:random)"]
    expected = league([Race(names[0], starter("greedy"), 0), Race(names[1], fixed, 1),
                       Race(names[2], starter("balanced"), 2),
                       Race(names[3], random_orders["steps"][0]["answers"]["1"], 4)])
    assert [(r["race"], r["points"]) for r in table] == [(row.race.name, row.points) for row in expected]


def test_league_text_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["league", "builtin:greedy", "builtin:balanced", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["#", "race", "points", "W", "destr", "W", "damage", "D", "L", "damage",
                                           "+/-"]
    assert "1  Balanced Brigade (builtin:balanced)" in out
    assert main(["league", "builtin:greedy"]) == 2
    assert "at least two races" in capsys.readouterr().err
    # race i is asked with seed S + i: past the largest seed was a ValueError's traceback (an API trial)
    assert main(["league", "builtin:greedy", "builtin:balanced", "--seed", str(2**63 - 1)]) == 2
    assert f"the seeds of this league go up to {2**63}, past the largest seed {2**63 - 1}" in capsys.readouterr().err


def test_a_race_of_the_other_game_is_left_out_saying_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Galaxy bot in a league was left out as `crashed: exited with code 2; stopped before
    answering init`, the reason (its armada.json names galaxy) only in its own log."""
    bot = tmp_path / "gbot"
    assert main(["new", "gbot", "--game", "galaxy", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["league", "builtin:greedy", "builtin:balanced", str(bot), "--seed", "2", "--json"]) == 0
    (left,) = json.loads(capsys.readouterr().out)["left_out"]
    assert left["detail"].endswith(f"({bot / 'armada.json'} names galaxy: a league is Mothership Down's)")
