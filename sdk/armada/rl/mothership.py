"""Mothership Down for a learner (docs/rl.md, "Mothership Down"): the configuration in, weighted
orders out; the numbers are `armada.rl.mothership_encoding`'s (numpy alone: a bot carries a copy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from armada.api import Session
from armada.games.mothership.config import FIGHTERS, MAX_VALUE
from armada.rl import mothership_encoding
from armada.rl.codec import Codec
from armada.rl.galaxy_encoding import MAX_FLEETS
from armada.rl.mothership_encoding import CONFIG_FEATURES, SHOTS, SLOTS, WEIGHTS, share

__all__ = ["CONFIG_FEATURES", "SHOTS", "WEIGHTS", "MothershipCodec", "share"]


class MothershipCodec(Codec):
    """Mothership Down's encodings for one configuration."""

    game = "mothership"

    def __init__(self, config: dict[str, Any], *, max_fleets: int = MAX_FLEETS) -> None:
        if max_fleets != MAX_FLEETS:
            raise ValueError("max_fleets is Galaxy's option (its fleets in flight); Mothership Down has no fleets")
        self.config = config
        self.observation_space = spaces.Box(0.0, float(MAX_VALUE), (len(CONFIG_FEATURES),), np.float32)
        self.action_space = spaces.MultiDiscrete(np.array([WEIGHTS] * SLOTS + [SHOTS] * FIGHTERS, dtype=np.int64))

    def encode(self, request: dict[str, Any] | None, memory: dict[str, Any]) -> np.ndarray:
        """The seat and the configuration's limits (the same before and after the battle)."""
        return mothership_encoding.encode(self.config, memory.get("seat", 0))

    def decode(self, action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
        """Valid orders: minimums, plus the spare points shared by weight, plus one shot strength per fighter."""
        return mothership_encoding.decode(action, self.config)

    def progress(self, session: Session, seat: int) -> float:
        """Damage dealt minus damage taken, over the largest mothership defence (0 before the battle)."""
        result = session.result
        if result is None or "damage_taken" not in result.scores:
            return 0.0
        taken = result.scores["damage_taken"]
        other = "2" if seat == 1 else "1"
        return max(-1.0, min(1.0, (taken[other] - taken[str(seat)]) / self.config["mothership_defence"][1]))
