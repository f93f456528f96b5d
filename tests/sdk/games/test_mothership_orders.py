"""Validation of a race's orders (MD-1 allocation, MD-2 attack patterns)."""

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from armada.games.mothership import (
    DEFAULT_CONFIG,
    OrdersError,
    RaceOrders,
    check_orders,
    parse_config,
    parse_orders,
    random_orders,
)
from armada.games.rng import Rng

from .mothership_samples import ziltoidians


def edited(path, value):
    """The Ziltoidians with one field replaced (path: keys/indices), or removed when value is ...."""
    orders = copy.deepcopy(ziltoidians())
    target = orders
    for key in path[:-1]:
        target = target[key]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return orders


def only_problem(orders, config=DEFAULT_CONFIG):
    """The one problem of the orders, besides the budget overrun a too large number also causes (MD-1)."""
    problems = [p for p in check_orders(orders, config) if not p.startswith("points: ")] or check_orders(orders, config)
    assert len(problems) == 1, problems
    return problems[0]


def test_seed_example_is_valid_and_parses_md1():
    """MD-1: the seed's Ziltoidians use exactly 100 points and are valid."""
    assert check_orders(ziltoidians()) == []
    race = parse_orders(ziltoidians())
    assert race.mothership == 40 and race.points_used() == 100
    assert race.fighters[4].pattern == (2, 2, 3)
    assert parse_orders(race.to_dict()) == race
    assert json.loads(json.dumps(race.to_dict())) == ziltoidians()


def test_unspent_points_are_allowed_md1():
    """MD-1: fewer than 100 points is legal (the rest is simply lost)."""
    orders = edited(["mothership", "defence"], 1)
    assert check_orders(orders) == []
    assert parse_orders(orders).points_used() == 61


def test_over_budget_rejected_with_breakdown_md1():
    """MD-1: the sum of all allocations must not exceed total_points."""
    orders = edited(["mothership", "defence"], 41)
    assert only_problem(orders) == (
        "points: 101 allocated, at most 100 allowed (mothership 41 + fighter attack 35 + fighter defence 25)"
    )
    assert check_orders(orders, parse_config({"total_points": 101})) == []


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["mothership", "defence"], 0, "mothership.defence: must be an integer from 1 to 50, got 0"),
        (["mothership", "defence"], 51, "mothership.defence: must be an integer from 1 to 50, got 51"),
        (["mothership", "defence"], -3, "mothership.defence: must be an integer from 1 to 50, got -3"),
        (["mothership", "defence"], True, "got true (a boolean)"),
        (["mothership", "defence"], 40.0, "got 40.0 (a number with a fraction part or decimal point)"),
        (["mothership", "defence"], "40", 'got a string "40"'),
        (["mothership", "defence"], None, "got null"),
        (["fighters", 0, "attack"], 0, "fighters[0].attack: must be an integer from 1 to 20, got 0"),
        (["fighters", 1, "attack"], 21, "fighters[1].attack: must be an integer from 1 to 20, got 21"),
        (["fighters", 3, "defence"], False, "fighters[3].defence: must be an integer from 1 to 20, got false"),
        (["fighters", 4, "defence"], 5.5, "fighters[4].defence: must be an integer from 1 to 20, got 5.5"),
        (["fighters", 2, "pattern", 0], 0, "fighters[2].pattern[0]: must be an integer >= 1, got 0"),
        (["fighters", 2, "pattern", 1], True, "fighters[2].pattern[1]: must be an integer >= 1, got true"),
        (["fighters", 2, "pattern", 2], 2.0, "fighters[2].pattern[2]: must be an integer >= 1, got 2.0"),
        (["fighters", 0, "pattern"], [], "fighters[0].pattern: must be a non-empty list of integers >= 1"),
        (["fighters", 0, "pattern"], "223", "fighters[0].pattern: must be a non-empty list"),
        (["fighters", 0, "pattern"], ..., "fighters[0].pattern: missing"),
        (["fighters", 0, "speed"], 3, "fighters[0]: unknown field 'speed' (expected attack, defence, pattern)"),
        (["fighters", 2], [7, 5, [2]], "fighters[2]: must be an object with attack, defence, pattern"),
        (["mothership", "attack"], 0, "mothership: unknown field 'attack' (expected defence)"),
        (["mothership"], 40, 'mothership: must be an object like {"defence": 40}, got 40'),
        (["mothership"], ..., "mothership: missing"),
        (["fighters"], ..., "fighters: missing"),
        (["fighters"], {}, "fighters: must be a list of exactly 5 fighters, got an object"),
        (["name"], "Ziltoid", "orders: unknown field 'name' (expected mothership, fighters)"),
    ],
)
def test_each_bad_field_is_named_md1_md2(path, value, message):
    """MD-1 / MD-2: zero, negative, out of range, non-integers, booleans, missing or extra fields."""
    problem = only_problem(edited(path, value))
    assert message in problem
    assert "\n" not in problem


@pytest.mark.parametrize("count", [0, 4, 6])
def test_exactly_five_fighters_md1(count):
    """MD-1: missing fighters or a sixth fighter are invalid."""
    orders = ziltoidians()
    orders["fighters"] = (orders["fighters"] * 2)[:count]
    assert only_problem(orders) == f"fighters: must be a list of exactly 5 fighters, got {count} fighters"


def test_pattern_length_limit_md2():
    """MD-2: at most max_pattern (100) entries; 100 is fine; any shot size >= 1 is fine."""
    assert check_orders(edited(["fighters", 1, "pattern"], [1] * 100)) == []
    assert check_orders(edited(["fighters", 1, "pattern"], [10**30])) == []
    problem = only_problem(edited(["fighters", 1, "pattern"], [1] * 101))
    assert problem == "fighters[1].pattern: at most 100 entries allowed, got 101"
    assert check_orders(edited(["fighters", 1, "pattern"], [1] * 4), parse_config({"max_pattern": 3}))


def test_orders_must_be_an_object():
    assert check_orders([1, 2]) == ["orders: must be an object with fields mothership and fighters, got a list"]
    assert check_orders(None)[0].endswith("got null")


def test_all_problems_listed_and_error_shows_them_all():
    # D-MD-4: the fault detail lists every problem at once, so one run shows everything to fix
    orders = edited(["mothership", "defence"], 0)
    orders["fighters"][1]["attack"] = 0
    orders["fighters"][2]["pattern"] = [0]
    problems = check_orders(orders)
    assert len(problems) == 3
    with pytest.raises(OrdersError) as info:
        parse_orders(orders)
    assert info.value.problems == problems
    assert str(info.value) == "; ".join(problems)


def test_budget_overrun_reported_with_the_other_problems():
    """MD-1: a budget overrun shows even when some other field is wrong (with 'at least')."""
    orders = edited(["fighters", 0, "attack"], "lots")
    orders["mothership"]["defence"] = 50
    problems = check_orders(orders)
    assert problems[0].startswith("fighters[0].attack")
    assert problems[-1] == ("points: at least 103 allocated, at most 100 allowed "
                            "(mothership 50 + fighter attack 28 + fighter defence 25)")
    assert len(problems) == 2
    orders["fighters"][0]["attack"] = 200
    assert check_orders(orders)[-1].startswith("points: 303 allocated")


def test_config_limits_apply():
    config = parse_config({"fighter_attack": [1, 6]})
    assert "fighters[0].attack: must be an integer from 1 to 6, got 7" in check_orders(ziltoidians(), config)


@settings(max_examples=200)
@given(st.integers(0, 2**64 - 1), st.integers(11, 300), st.integers(1, 5))
def test_random_orders_are_always_valid(seed, total, max_pattern):
    """The generator used by the random starter and the bench never makes invalid orders."""
    config = parse_config({"total_points": total, "max_pattern": max_pattern})
    race = random_orders(Rng(seed), config)
    assert isinstance(race, RaceOrders)
    assert check_orders(race.to_dict(), config) == []
    assert race.points_used() <= total


def test_every_field_given_is_checked_whatever_else_is_wrong():
    """A competitor's trial: an unknown field beside `defence` hid its range (99 of 1..50); with a
    sixth fighter no fighter was checked (its `pattern: [0]` never named), and the budget said "at
    least 128" though every number was given. The docs: all problems are shown."""
    orders = ziltoidians()
    orders["mothership"] = {"defence": 99, "defense": 3}
    problems = check_orders(orders)
    assert "mothership: unknown field 'defense' (expected defence)" in problems
    assert "mothership.defence: must be an integer from 1 to 50, got 99" in problems
    six = ziltoidians()
    six["fighters"].append({"attack": 1, "defence": 1, "pattern": [0]})
    problems = check_orders(six)
    assert "fighters: must be a list of exactly 5 fighters, got 6 fighters" in problems
    assert "fighters[5].pattern[0]: must be an integer >= 1, got 0" in problems
    assert problems[-1].startswith("points: 102 allocated")  # every number given: exact
    many = ziltoidians()
    many["fighters"] = many["fighters"] * 2000  # a reply of thousands: a bounded list of problems
    assert len(check_orders(many)) == 2
    # every bad entry of a pattern (a trial's [0, -1, 2.5] was told of its 0 only), up to a bound
    bad = ziltoidians()
    bad["fighters"][4]["pattern"] = [0, -1, 2.5, 3]
    problems = check_orders(bad)
    assert [p for p in problems if "pattern" in p] == [
        "fighters[4].pattern[0]: must be an integer >= 1, got 0",
        "fighters[4].pattern[1]: must be an integer >= 1, got -1",
        "fighters[4].pattern[2]: must be an integer >= 1, got 2.5 (a number with a fraction part or decimal point)"]
    bad["fighters"][4]["pattern"] = [0] * 40
    assert [p for p in check_orders(bad) if "pattern" in p][-1] == "fighters[4].pattern: 35 more entries like these"
