"""Galaxy configuration: the *(config)* numbers of docs/games/galaxy.md (GX-3, GX-4, GX-15, GX-21), validated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from armada.games.base import ConfigError
from armada.jsontext import shown

UNITS: tuple[str, str, str] = ("battleships", "cruisers", "launchers")

#: Upper bound for any unit count or rate in a configuration (keeps games sane and fast).
MAX_COUNT = 100_000
#: Upper bound for the turn limit.
MAX_TURNS = 10_000


@dataclass(frozen=True)
class GalaxyConfig:
    """Validated Galaxy parameters; unit triples are (battleships, cruisers, launchers)."""

    max_turns: int = 200
    home_units: tuple[int, int, int] = (5, 10, 10)
    home_production: tuple[int, int, int] = (2, 4, 4)
    neutral_launchers: tuple[int, int] = (3, 15)
    neutral_growth: tuple[int, int] = (0, 2)
    neutral_production: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] = ((0, 1), (1, 3), (1, 3))


DEFAULT_CONFIG = GalaxyConfig()

_KEYS = ("max_turns", "home_units", "home_production", "neutral_launchers", "neutral_growth", "neutral_production")


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(field, f"must be an integer, got {shown(value)}")
    if not lo <= value <= hi:
        raise ConfigError(field, f"must be between {lo} and {hi}, got {value}")
    return value


def _triple(value: Any, field: str, lo: int, default: tuple[int, int, int]) -> tuple[int, int, int]:
    """A {battleships, cruisers, launchers} object; a unit left out keeps its default."""
    if not isinstance(value, dict):
        raise ConfigError(field, f"must be an object with keys {', '.join(UNITS)}, got {shown(value)}")
    extra = sorted(set(value) - set(UNITS))
    if extra:
        raise ConfigError(f"{field}.{extra[0]}", f"unknown unit (expected one of {', '.join(UNITS)})")
    b, c, n = (
        _int(value[u], f"{field}.{u}", lo, MAX_COUNT) if u in value else default[i] for i, u in enumerate(UNITS)
    )
    return (b, c, n)


def _range(value: Any, field: str) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ConfigError(field, f"must be a [low, high] pair of integers, got {shown(value)}")
    lo = _int(value[0], f"{field}[0]", 0, MAX_COUNT)
    hi = _int(value[1], f"{field}[1]", 0, MAX_COUNT)
    if lo > hi:
        raise ConfigError(field, f"low {lo} is above high {hi}")
    return (lo, hi)


def parse_config(raw: dict[str, Any] | None) -> GalaxyConfig:
    """Validate a configuration dict; ConfigError names the bad field.

    None, a missing key or a unit left out of a nested object takes the default.
    """
    if raw is None:
        return DEFAULT_CONFIG
    if not isinstance(raw, dict):
        raise ConfigError("config", f"must be an object, got {shown(raw)}")
    unknown = sorted(set(raw) - set(_KEYS))
    if unknown:
        raise ConfigError(unknown[0], f"unknown galaxy setting (known: {', '.join(_KEYS)})")
    d = DEFAULT_CONFIG
    max_turns = _int(raw["max_turns"], "max_turns", 1, MAX_TURNS) if "max_turns" in raw else d.max_turns
    home_units = _triple(raw["home_units"], "home_units", 0, d.home_units) if "home_units" in raw else d.home_units
    if "home_units" in raw and sum(home_units) == 0:
        raise ConfigError("home_units", "a home planet must start with at least one unit")
    home_prod = (
        _triple(raw["home_production"], "home_production", 0, d.home_production) if "home_production" in raw else None
    )
    launchers = _range(raw["neutral_launchers"], "neutral_launchers") if "neutral_launchers" in raw else None
    growth = _range(raw["neutral_growth"], "neutral_growth") if "neutral_growth" in raw else None
    production = d.neutral_production
    if "neutral_production" in raw:
        value = raw["neutral_production"]
        if not isinstance(value, dict):
            raise ConfigError("neutral_production", f"must be an object of [low, high] pairs, got {shown(value)}")
        extra = sorted(set(value) - set(UNITS))
        if extra:
            raise ConfigError(f"neutral_production.{extra[0]}", "unknown unit")
        b, c, n = (
            _range(value[u], f"neutral_production.{u}") if u in value else d.neutral_production[i]
            for i, u in enumerate(UNITS)
        )
        production = (b, c, n)
    return GalaxyConfig(
        max_turns=max_turns,
        home_units=home_units,
        home_production=home_prod or d.home_production,
        neutral_launchers=launchers or d.neutral_launchers,
        neutral_growth=growth or d.neutral_growth,
        neutral_production=production,
    )


def config_to_dict(config: GalaxyConfig) -> dict[str, Any]:
    """The configuration as plain JSON data (the shape parse_config accepts)."""
    return {
        "max_turns": config.max_turns,
        "home_units": dict(zip(UNITS, config.home_units, strict=True)),
        "home_production": dict(zip(UNITS, config.home_production, strict=True)),
        "neutral_launchers": list(config.neutral_launchers),
        "neutral_growth": list(config.neutral_growth),
        "neutral_production": {u: list(r) for u, r in zip(UNITS, config.neutral_production, strict=True)},
    }
