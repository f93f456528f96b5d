"""The limits a platform match runs with, per game, from `settings.ARMADA_GAME_LIMITS`."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from armada.referee.clock import Limits
from armada_sandbox import SandboxLimits, limits_for


def game_limits(game: str) -> tuple[Limits, SandboxLimits]:
    """(time limits for the referee, resource limits for each bot container) of one game.

    Raises ValueError naming the game and field when the settings hold a bad value.
    """
    table: dict[str, dict[str, Any]] = settings.ARMADA_GAME_LIMITS
    if game not in table:
        raise ValueError(f"no limits configured for game {game!r}; configured: {', '.join(sorted(table))}")
    entry = table[game]
    try:
        times = Limits(init_ms=entry["init_ms"], turn_ms=entry["turn_ms"], bank_ms=entry["bank_ms"])
        sandbox = limits_for(game, entry.get("sandbox") or {})
    except (KeyError, ValueError) as exc:
        raise ValueError(f"ARMADA_GAME_LIMITS[{game!r}]: {exc}") from None
    return times, sandbox
