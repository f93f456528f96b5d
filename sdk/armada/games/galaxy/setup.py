"""The starting position: homes (GX-1, GX-3) and point-symmetric neutral planets (GX-4)."""

from __future__ import annotations

from armada.games.galaxy.config import GalaxyConfig
from armada.games.galaxy.geometry import HOME, PLANETS, mirror
from armada.games.galaxy.state import GalaxyState, Planet
from armada.games.rng import Rng

#: The first planet of each neutral pair (its partner is 17 - k); pair i is NEUTRAL_PAIRS[i].
NEUTRAL_PAIRS: tuple[int, ...] = tuple(range(2, PLANETS // 2 + 1))


def initial_state(seed: int, config: GalaxyConfig) -> GalaxyState:
    """The state before turn 1: one seeded draw per neutral pair, shared by both planets (GX-4)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    rng = Rng(seed)
    planets: list[Planet | None] = [None] * PLANETS
    for seat, home in HOME.items():
        b, c, n = config.home_units
        planets[home - 1] = Planet(home, seat, b, c, n, 0, config.home_production, -1)
    for index, k in enumerate(NEUTRAL_PAIRS):
        launchers = rng.randint(*config.neutral_launchers)
        base = (
            rng.randint(*config.neutral_production[0]),
            rng.randint(*config.neutral_production[1]),
            rng.randint(*config.neutral_production[2]),
        )
        for pid in (k, mirror(k)):
            planets[pid - 1] = Planet(pid, 0, 0, 0, launchers, 0, base, index)
    return GalaxyState(config=config, seed=seed, rng=rng, planets=[p for p in planets if p is not None])
