"""Mothership Down configuration: the MD-1 / MD-2 limits, validated (ConfigError names the field)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from armada.games.base import ConfigError

#: Fighters per race (MD-1, MD-4); fixed by the rules, not configurable.
FIGHTERS = 5
#: Upper bound for any configured number (keeps battles short and leagues fast).
MAX_VALUE = 10_000


@dataclass(frozen=True)
class MothershipConfig:
    """Validated parameters; every range is an inclusive (low, high) pair."""

    total_points: int = 100
    max_pattern: int = 100
    mothership_defence: tuple[int, int] = (1, 50)
    fighter_attack: tuple[int, int] = (1, 20)
    fighter_defence: tuple[int, int] = (1, 20)

    def min_points(self) -> int:
        """Points the cheapest legal orders use."""
        return self.mothership_defence[0] + FIGHTERS * (self.fighter_attack[0] + self.fighter_defence[0])


DEFAULT_CONFIG = MothershipConfig()

_RANGES = ("mothership_defence", "fighter_attack", "fighter_defence")
_KEYS = ("total_points", "max_pattern", *_RANGES)


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(field, f"must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(field, f"must be between {lo} and {hi}, got {value}")
    return value


def _range(value: Any, field: str) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ConfigError(field, f"must be a [low, high] pair of integers, got {value!r}")
    lo = _int(value[0], f"{field}[0]", 1, MAX_VALUE)
    hi = _int(value[1], f"{field}[1]", 1, MAX_VALUE)
    if hi < lo:
        raise ConfigError(field, f"low {lo} is above high {hi}")
    return (lo, hi)


def parse_config(raw: dict[str, Any] | MothershipConfig | None) -> MothershipConfig:
    """A validated config from a dict (None or missing keys: defaults); ConfigError names the bad field.

    An already parsed MothershipConfig is returned as it is."""
    if raw is None:
        return DEFAULT_CONFIG
    if isinstance(raw, MothershipConfig):
        return raw
    if not isinstance(raw, dict):
        raise ConfigError("config", f"must be an object, got {type(raw).__name__}")
    unknown = sorted(k for k in raw if k not in _KEYS)
    if unknown:
        raise ConfigError(str(unknown[0]), f"unknown setting (known: {', '.join(_KEYS)})")
    d = DEFAULT_CONFIG
    config = MothershipConfig(
        total_points=_int(raw.get("total_points", d.total_points), "total_points", 1, MAX_VALUE),
        max_pattern=_int(raw.get("max_pattern", d.max_pattern), "max_pattern", 1, MAX_VALUE),
        mothership_defence=_range(raw.get("mothership_defence", d.mothership_defence), "mothership_defence"),
        fighter_attack=_range(raw.get("fighter_attack", d.fighter_attack), "fighter_attack"),
        fighter_defence=_range(raw.get("fighter_defence", d.fighter_defence), "fighter_defence"),
    )
    if config.total_points < config.min_points():
        raise ConfigError(
            "total_points",
            f"{config.total_points} is below {config.min_points()}, the cost of the cheapest legal orders",
        )
    return config


def config_to_dict(config: MothershipConfig) -> dict[str, Any]:
    """The config as plain JSON data (ranges as two-element lists); parse_config inverts it."""
    return {
        "total_points": config.total_points,
        "max_pattern": config.max_pattern,
        "mothership_defence": list(config.mothership_defence),
        "fighter_attack": list(config.fighter_attack),
        "fighter_defence": list(config.fighter_defence),
    }
