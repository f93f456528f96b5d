"""Galaxy configuration: defaults of docs/games/galaxy.md and validation naming the bad field."""

from __future__ import annotations

import pytest

from armada.games.base import ConfigError
from armada.games.galaxy import GALAXY, GalaxyConfig
from armada.games.galaxy.config import parse_config


def test_defaults_are_the_games_md_numbers() -> None:
    # GX-3 start units, GX-4 neutral ranges, GX-15 home rate, turn limit 200
    config = GALAXY.parse_config(None)
    assert config == GALAXY.parse_config({})
    assert config.max_turns == 200
    assert config.home_units == (5, 10, 10)
    assert config.home_production == (2, 4, 4)
    assert config.neutral_launchers == (3, 15)
    assert config.neutral_growth == (0, 2)
    assert config.neutral_production == ((0, 1), (1, 3), (1, 3))


def test_config_round_trips_through_json_data() -> None:
    raw = {
        "max_turns": 50,
        "home_units": {"battleships": 1, "cruisers": 2, "launchers": 3},
        "home_production": {"battleships": 0, "cruisers": 1, "launchers": 0},
        "neutral_launchers": [0, 4],
        "neutral_growth": [1, 1],
        "neutral_production": {"battleships": [0, 0], "cruisers": [2, 2], "launchers": [0, 5]},
    }
    config = GALAXY.parse_config(raw)
    assert isinstance(config, GalaxyConfig)
    assert GALAXY.config_to_dict(config) == raw
    assert GALAXY.parse_config(GALAXY.config_to_dict(config)) == config


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": "200"}, "max_turns"),
        ({"max_turns": True}, "max_turns"),
        ({"max_turns": 10**6}, "max_turns"),
        ({"turns": 10}, "turns"),
        ({"home_units": [5, 10, 10]}, "home_units"),
        ({"home_units": {"battleships": 5, "cruisers": True}}, "home_units.cruisers"),
        ({"home_units": {"battleships": -1, "cruisers": 10, "launchers": 10}}, "home_units.battleships"),
        ({"home_units": {"battleships": 0, "cruisers": 0, "launchers": 0}}, "home_units"),
        ({"home_units": {"battleships": 1, "cruisers": 1, "launchers": 1, "probes": 1}}, "home_units.probes"),
        ({"home_production": {"battleships": 1.5, "cruisers": 1, "launchers": 1}}, "home_production.battleships"),
        ({"neutral_launchers": [15, 3]}, "neutral_launchers"),
        ({"neutral_launchers": [3]}, "neutral_launchers"),
        ({"neutral_launchers": [-1, 3]}, "neutral_launchers[0]"),
        ({"neutral_growth": "0..2"}, "neutral_growth"),
        ({"neutral_production": {"launchers": [1]}}, "neutral_production.launchers"),
        (
            {"neutral_production": {"battleships": [2, 1], "cruisers": [1, 3], "launchers": [1, 3]}},
            "neutral_production.battleships",
        ),
        ({"neutral_production": [[0, 1]]}, "neutral_production"),
    ],
)
def test_bad_config_names_the_field(raw: dict, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        GALAXY.parse_config(raw)
    assert info.value.field == field
    assert field in str(info.value)


def test_config_must_be_an_object() -> None:
    with pytest.raises(ConfigError, match="config"):
        GALAXY.parse_config([1, 2])  # type: ignore[arg-type]


def test_nested_objects_merge_with_the_defaults() -> None:
    """GX-3/GX-4 (config): a unit left out of a nested object keeps its default."""
    config = parse_config({"home_units": {"battleships": 1}, "neutral_production": {"cruisers": [2, 2]}})
    assert config.home_units == (1, 10, 10)
    assert config.neutral_production == ((0, 1), (2, 2), (1, 3))


def test_bad_values_are_shown_as_json() -> None:
    with pytest.raises(ConfigError, match=r"max_turns: must be an integer, got true"):
        parse_config({"max_turns": True})
    with pytest.raises(ConfigError, match=r'max_turns: must be an integer, got "5"'):
        parse_config({"max_turns": "5"})
