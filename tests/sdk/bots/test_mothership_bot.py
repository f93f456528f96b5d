"""The Mothership Down bot library: typed Orders and MothershipBot."""

import io
import json

import pytest

from armada.bot.mothership import Fighter, MothershipBot, Orders, random_orders
from armada.bot.runtime import run
from armada.games.mothership import check_orders, parse_config
from armada.games.rng import Rng


class Zilt(MothershipBot):
    name = "The Ziltoidians"

    def orders(self, config):
        return Orders.uniform(40, 7, 5, [2, 2, 3])


def test_orders_points_and_reply_shape_md1():
    """MD-1: points used are mothership defence plus each fighter's attack and defence."""
    orders = Orders.uniform(40, 7, 5, [2, 2, 3])
    assert orders.points_used() == 100 and orders.points_left() == 0
    assert orders.points_left({"total_points": 120}) == 20
    data = orders.to_dict()
    assert data["mothership"] == {"defence": 40}
    assert data["fighters"][0] == {"attack": 7, "defence": 5, "pattern": [2, 2, 3]}
    assert Orders.from_dict(data) == orders
    assert check_orders(data) == []


def test_validate_reports_the_same_problems_as_the_engine():
    orders = Orders(30, [Fighter(7, 5, [2]) for _ in range(4)] + [Fighter(21, 5, [0])])
    problems = orders.validate()
    assert problems == check_orders(orders.to_dict())
    assert problems == [
        "fighters[4].attack: must be an integer from 1 to 20, got 21",
        "fighters[4].pattern[0]: must be an integer >= 1, got 0",
        "points: 104 allocated, at most 100 allowed (mothership 30 + fighter attack 49 + fighter defence 25)",
    ]
    assert Orders.uniform(45, 7, 5, [1]).validate() == [
        "points: 105 allocated, at most 100 allowed (mothership 45 + fighter attack 35 + fighter defence 25)"
    ]
    assert Orders.uniform(45, 7, 5, [1]).validate(parse_config({"total_points": 105})) == []


def test_random_orders_valid_and_reproducible():
    a = random_orders(Rng(4))
    assert a == random_orders(Rng(4)) and a.validate() == []
    assert random_orders(Rng(4), {"total_points": 40}).points_used() <= 40


def test_bot_answers_orders_after_init():
    bot = Zilt()
    bot.on_init({"type": "init", "seat": 2, "config": {"total_points": 100}})
    assert bot.seat == 2 and bot.config.total_points == 100
    assert bot.answer({"type": "orders", "id": 1}) == Orders.uniform(40, 7, 5, [2, 2, 3]).to_dict()
    with pytest.raises(ValueError, match="only answers 'orders'"):
        bot.answer({"type": "scout", "id": 2})


def test_bot_logs_orders_that_will_be_rejected(capsys):
    bot = Zilt()
    bot.on_init({"seat": 1, "config": {"total_points": 90}})
    reply = bot.answer({"type": "orders", "id": 1})
    assert reply["mothership"] == {"defence": 40}  # still sent: the engine decides
    assert "these orders will be rejected: points: 100 allocated, at most 90 allowed" in capsys.readouterr().err


def test_unknown_config_falls_back_to_defaults_with_a_log_line(capsys):
    bot = Zilt()
    bot.on_init({"seat": 1, "config": {"gravity": 3}})
    assert bot.config == parse_config(None)
    assert "unknown config" in capsys.readouterr().err


def test_orders_must_return_orders():
    class Broken(MothershipBot):
        def orders(self, config):
            return 42

    bot = Broken()
    bot.on_init({"seat": 1, "config": {}})
    with pytest.raises(TypeError, match="must return an Orders"):
        bot.answer({"type": "orders"})
    with pytest.raises(NotImplementedError):
        MothershipBot().orders(parse_config(None))


def test_runtime_protocol_round_trip_md3():
    """MD-3: the race name is the `name` the bot returns at the handshake; orders carry the request id."""
    stdin = io.StringIO(
        '{"type": "init", "id": 0, "protocol": 1, "game": "mothership", "seat": 1, "config": {}, "limits": {}}\n'
        '{"type": "orders", "id": 1, "bank_ms": 10000}\n'
        '{"type": "end", "id": 2, "result": {}}\n'
    )
    stdout = io.StringIO()
    run(Zilt(), stdin, stdout)
    lines = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert lines[0] == {"name": "The Ziltoidians", "id": 0}
    assert lines[1]["id"] == 1
    assert check_orders({k: v for k, v in lines[1].items() if k != "id"}) == []


@pytest.mark.parametrize(
    "config", [None, {"total_points": 11}, {"mothership_defence": [9, 9], "fighter_attack": [2, 3]}]
)
def test_cheapest_orders_are_always_legal(config):
    cheapest = Orders.cheapest(config)
    assert cheapest.validate(config) == []
    assert cheapest.points_used() == parse_config(config).min_points()
