"""Galaxy for a learner (docs/rl.md, "Galaxy"): the spaces around `galaxy_encoding`'s numbers.

Observation, a Dict of float32 arrays (counts clipped to COUNT_CAP):
- `planets` (16 x len(PLANET_FEATURES)): row i is planet i + 1, as the seat knows it now
  (its own planets always, foreign ones only through this turn's probe intel, GX-19);
- `fleets` (max_fleets x len(FLEET_FEATURES)): the seat's fleets in flight, padded with zeros;
- `game` (len(GAME_FEATURES)): the phase (scout, command or end), turn, seat, probes, planet counts.

Action, MultiDiscrete of shape (16, 2): row i is planet i + 1's [target, bucket]; target 0 is
"nothing", 1..16 a planet. Only the seat's own planets' rows are read. In the scout step each
row is that planet's probe (GX-7); in the command step it sends FRACTIONS[bucket] of the
planet's battleships and of its cruisers (rounded up) to the target.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from armada.api import Session
from armada.games.galaxy.orders import MAX_FLEET_ORDERS
from armada.rl import galaxy_encoding
from armada.rl.codec import Codec
from armada.rl.galaxy_encoding import (
    COUNT_CAP,
    FLEET_FEATURES,
    FRACTIONS,
    GAME_FEATURES,
    MAX_FLEETS,
    PLANET_FEATURES,
    PLANETS,
)

__all__ = ["COUNT_CAP", "FLEET_FEATURES", "FRACTIONS", "GAME_FEATURES", "MAX_FLEETS", "PLANETS", "PLANET_FEATURES",
           "GalaxyCodec"]


#: The longest travel time in turns: the grid's largest distance, 3, doubled for battleships (GX-6).
LONGEST_TRAVEL = 6
#: The largest `max_fleets`: more fleets than a seat can have in flight at once.
LARGEST_MAX_FLEETS = MAX_FLEET_ORDERS * LONGEST_TRAVEL


class GalaxyCodec(Codec):
    """Galaxy's encodings for one configuration."""

    game = "galaxy"

    def __init__(self, config: dict[str, Any], *, max_fleets: int = MAX_FLEETS) -> None:
        if isinstance(max_fleets, bool) or not isinstance(max_fleets, int) or max_fleets < 1:
            raise ValueError(f"max_fleets must be a positive integer, got {max_fleets!r}")
        if max_fleets > LARGEST_MAX_FLEETS:  # a larger one only wastes memory (10**9: all of it, no message)
            raise ValueError(f"max_fleets must be from 1 to {LARGEST_MAX_FLEETS} (no seat has more fleets in flight: "
                             f"{MAX_FLEET_ORDERS} orders a turn, GX-10, each at most {LONGEST_TRAVEL} turns, GX-6), "
                             f"got {max_fleets}")
        self.max_fleets = max_fleets
        self.max_turns = int(config["max_turns"])
        # Pairs, not a dict: Gymnasium sorts a dict's keys, and its flattening (FlattenObservation,
        # SB3's inputs) must follow the observation's order, the one of `galaxy_encoding.flat`.
        self.observation_space = spaces.Dict([
            ("planets", spaces.Box(0.0, COUNT_CAP, (PLANETS, len(PLANET_FEATURES)), np.float32)),
            ("fleets", spaces.Box(0.0, COUNT_CAP, (max_fleets, len(FLEET_FEATURES)), np.float32)),
            ("game", spaces.Box(0.0, COUNT_CAP, (len(GAME_FEATURES),), np.float32)),
        ])
        self.action_space = spaces.MultiDiscrete(np.array([[PLANETS + 1, len(FRACTIONS)]] * PLANETS, dtype=np.int64))

    def encode(self, request: dict[str, Any] | None, memory: dict[str, Any]) -> dict[str, np.ndarray]:
        """Features of the seat's latest observation, with this turn's intel in the command step."""
        return galaxy_encoding.encode(request, memory, max_turns=self.max_turns, max_fleets=self.max_fleets)

    def decode(self, action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
        """Probes (scout) or fleets (command) of the seat's own planets' rows; other rows are ignored."""
        return galaxy_encoding.decode(action, request, memory)

    def progress(self, session: Session, seat: int) -> float:
        """Own planets minus the opponent's, over 16 (owners are public, GX-19)."""
        owners = [planet.owner for planet in session.driver.state.planets]
        return (owners.count(seat) - sum(1 for o in owners if o not in (0, seat))) / PLANETS

