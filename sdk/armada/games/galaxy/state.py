"""The Galaxy match state: plain mutable records (slots) the engine advances in place."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from armada.games.base import Result
from armada.games.galaxy.config import GalaxyConfig
from armada.games.rng import Rng

#: Phases of a turn: the scout request, the command request, and the end of the game.
PHASES: tuple[str, ...] = ("scout", "command", "over")


@dataclass(slots=True)
class Planet:
    """One planet: owner (0 neutral), contents, turns held (GX-17) and base production (GX-4, GX-15)."""

    id: int
    owner: int
    battleships: int
    cruisers: int
    launchers: int
    hold: int
    base: tuple[int, int, int]  # home rate for homes, potential rate for the others
    growth_pair: int  # index of the pair's growth draw (GX-18); -1 for homes


@dataclass(slots=True)
class Fleet:
    """A fleet in flight (GX-11): it lands in the arrival step of turn `arrives`."""

    id: int
    owner: int
    origin: int
    target: int
    battleships: int
    cruisers: int
    launched: int
    arrives: int


@dataclass(slots=True)
class GalaxyState:
    """Everything about a match at one moment, hidden parts and the generator included."""

    config: GalaxyConfig
    seed: int
    rng: Rng
    planets: list[Planet]  # planets[i] is planet i + 1
    turn: int = 1
    phase: str = "scout"
    fleets: list[Fleet] = field(default_factory=list)
    fleet_counts: dict[int, int] = field(default_factory=lambda: {1: 0, 2: 0})  # fleets launched
    # scout phase results of the current turn (cleared when the turn ends)
    probes: dict[int, list[int]] = field(default_factory=lambda: {1: [], 2: []})
    intel: dict[int, list[dict[str, Any]]] = field(default_factory=lambda: {1: [], 2: []})
    probe_warnings: dict[int, list[str]] = field(default_factory=lambda: {1: [], 2: []})
    # what the last command phase left for the next observation
    battles: list[dict[str, Any]] = field(default_factory=list)
    order_warnings: dict[int, list[str]] = field(default_factory=lambda: {1: [], 2: []})
    faults: dict[int, tuple[str, str]] = field(default_factory=dict)
    result: Result | None = None

    def planet(self, pid: int) -> Planet:
        """Planet by id (1..16)."""
        return self.planets[pid - 1]
