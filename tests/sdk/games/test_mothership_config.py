"""Mothership Down configuration: defaults from MD-1 / MD-2, validation naming the field."""

import pytest

from armada.games.base import ConfigError
from armada.games.mothership import DEFAULT_CONFIG, MOTHERSHIP, MothershipConfig, parse_config
from armada.games.mothership.config import config_to_dict


def test_defaults_are_the_seed_limits_md1_md2():
    """MD-1: 100 points, mothership 1..50, fighters 1..20 / 1..20; MD-2: patterns up to 100 entries."""
    c = parse_config(None)
    assert c == DEFAULT_CONFIG == parse_config({})
    assert (c.total_points, c.max_pattern) == (100, 100)
    assert c.mothership_defence == (1, 50)
    assert c.fighter_attack == (1, 20) and c.fighter_defence == (1, 20)


def test_round_trip_and_partial_override():
    c = parse_config({"total_points": 150, "fighter_attack": [2, 30]})
    assert c.total_points == 150 and c.fighter_attack == (2, 30) and c.max_pattern == 100
    assert parse_config(config_to_dict(c)) == c
    assert MOTHERSHIP.config_to_dict(MOTHERSHIP.parse_config(None)) == {
        "total_points": 100,
        "max_pattern": 100,
        "mothership_defence": [1, 50],
        "fighter_attack": [1, 20],
        "fighter_defence": [1, 20],
    }


@pytest.mark.parametrize(
    ("raw", "field", "words"),
    [
        ({"total_points": True}, "total_points", "must be an integer"),
        ({"total_points": 100.0}, "total_points", "must be an integer"),
        ({"max_pattern": 0}, "max_pattern", "between 1 and"),
        ({"fighter_attack": [5]}, "fighter_attack", "[low, high] pair"),
        ({"fighter_attack": [0, 5]}, "fighter_attack[0]", "between 1 and"),
        ({"mothership_defence": [30, 10]}, "mothership_defence", "low 30 is above high 10"),
        ({"fighters": 6}, "fighters", "unknown setting"),
        ({"total_points": 10}, "total_points", "cheapest legal orders"),
        ({"fighter_defence": "1-20"}, "fighter_defence", "[low, high] pair"),
    ],
)
def test_bad_config_names_the_field(raw, field, words):
    with pytest.raises(ConfigError) as info:
        parse_config(raw)
    assert info.value.field == field
    assert words in str(info.value)
    assert str(info.value).startswith(f"{field}:")


def test_config_must_be_an_object():
    with pytest.raises(ConfigError, match="config: must be an object"):
        parse_config([1, 2])  # type: ignore[arg-type]


def test_minimum_points_is_the_cheapest_legal_orders():
    assert DEFAULT_CONFIG.min_points() == 11
    assert parse_config({"total_points": 11}).total_points == 11
    assert MothershipConfig(mothership_defence=(5, 50)).min_points() == 15
