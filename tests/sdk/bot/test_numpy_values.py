"""numpy's integers in what a bot returns (a trial: a Mothership race built from numpy numbers, as a
trained policy's `argmax` gives them, crashed with "int64 is not JSON serializable" and, on the
server's numpy, "must be an integer from 1 to 50, got 10"). The library sends them as Python's ints;
numpy's booleans and floats stay refused as before."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from armada.bot.galaxy import FleetOrder
from armada.bot.galaxy.bot import probe_ids
from armada.bot.mothership import Fighter, Orders
from armada.cli.main import main


def test_mothership_orders_of_numpy_integers_are_valid_json():
    orders = Orders(np.int64(10), [Fighter(np.int32(8), np.int64(7), [np.int64(5), np.uint8(2)])
                                   for _ in range(5)])
    reply = orders.to_dict()
    assert json.loads(json.dumps(reply)) == reply
    assert reply == Orders(10, [Fighter(8, 7, [5, 2]) for _ in range(5)]).to_dict()
    assert orders.validate() == []
    assert Orders(10, [Fighter(np.float64(8.0), 7, [5]) for _ in range(5)]).validate()  # a float stays refused


def test_galaxy_orders_and_probes_of_numpy_integers():
    order = FleetOrder(np.int64(1), np.int64(2), np.int64(3))
    assert order.to_json() == {"from": 1, "to": 2, "battleships": 3, "cruisers": 0}
    assert type(order.from_) is int
    assert probe_ids([np.int64(4), 5, np.array(6)]) == [4, 5, 6]
    with pytest.raises(ValueError, match="expected an integer"):
        FleetOrder(1, np.bool_(True), 3)
    with pytest.raises(TypeError, match="expected a planet id"):
        probe_ids([np.float64(3.0)])


NUMPY_RACE = """
import numpy as np

from armada.bot.mothership import Fighter, MothershipBot, Orders
from armada.bot.runtime import run


class Bot(MothershipBot):
    name = "Numbers"

    def orders(self, config):
        weights = np.array([10, 8, 7, 5])
        return Orders(weights[0], [Fighter(weights[1], weights[2], [weights[3]]) for _ in range(5)])


run(Bot())
"""


def test_a_race_of_numpy_numbers_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "numbers"
    folder.mkdir()
    (folder / "main.py").write_text(NUMPY_RACE)
    assert main(["play", str(folder), "builtin:balanced", "--game", "mothership", "--seed", "1", "--json"]) == 0
    players = json.loads(capsys.readouterr().out)["players"]
    assert players[0]["status"] == "ok", players[0]
