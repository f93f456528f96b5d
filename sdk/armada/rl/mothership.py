"""Mothership Down for a learner (docs/rl.md, "Mothership Down"): the configuration in, weighted orders out.

The orders request says nothing but the configuration (MD-11: a race learns nothing of its
opponent), so the observation is the seat and the configuration's limits: a float32 vector
of CONFIG_FEATURES.

Action, MultiDiscrete of WEIGHTS x 11 then SHOTS x 5: eleven weights (the mothership's
defence, the five fighters' attack, the five fighters' defence) share the points left after
every minimum, in proportion, capped at each maximum; then each fighter's shot strength
(1..SHOTS), its whole pattern. Every action decodes to valid orders (MD-1, MD-2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from armada.api import Session
from armada.games.mothership.config import FIGHTERS, MAX_VALUE
from armada.rl.codec import Codec
from armada.rl.galaxy_encoding import MAX_FLEETS

CONFIG_FEATURES = ("seat", "total_points", "max_pattern", "mothership_defence_min", "mothership_defence_max",
                   "fighter_attack_min", "fighter_attack_max", "fighter_defence_min", "fighter_defence_max")
#: Weight levels of each allocation (0 = the minimum only).
WEIGHTS = 10
#: Shot strengths a fighter's pattern can take (1..SHOTS).
SHOTS = 5
_SLOTS = 1 + 2 * FIGHTERS


class MothershipCodec(Codec):
    """Mothership Down's encodings for one configuration."""

    game = "mothership"

    def __init__(self, config: dict[str, Any], *, max_fleets: int = MAX_FLEETS) -> None:
        if max_fleets != MAX_FLEETS:
            raise ValueError("max_fleets is Galaxy's option (its fleets in flight); Mothership Down has no fleets")
        self.config = config
        bounds = [config["mothership_defence"]] + [config["fighter_attack"]] * FIGHTERS \
            + [config["fighter_defence"]] * FIGHTERS
        self._lows, self._highs = [lo for lo, _ in bounds], [hi for _, hi in bounds]
        self.observation_space = spaces.Box(0.0, float(MAX_VALUE), (len(CONFIG_FEATURES),), np.float32)
        self.action_space = spaces.MultiDiscrete(np.array([WEIGHTS] * _SLOTS + [SHOTS] * FIGHTERS, dtype=np.int64))

    def encode(self, request: dict[str, Any] | None, memory: dict[str, Any]) -> np.ndarray:
        """The seat and the configuration's limits (the same before and after the battle)."""
        c = self.config
        return np.array([memory.get("seat", 0), c["total_points"], c["max_pattern"], *c["mothership_defence"],
                         *c["fighter_attack"], *c["fighter_defence"]], dtype=np.float32)

    def decode(self, action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
        """Valid orders: minimums, plus the spare points shared by weight, plus one shot strength per fighter."""
        values = np.asarray(action, dtype=np.int64).reshape(-1).tolist()
        weights = [min(max(w, 0), WEIGHTS - 1) for w in values[:_SLOTS]]
        shots = [min(max(s, 0), SHOTS - 1) + 1 for s in values[_SLOTS:]]
        points = share(weights, self._lows, self._highs, self.config["total_points"])
        return {"mothership": {"defence": points[0]},
                "fighters": [{"attack": points[1 + i], "defence": points[1 + FIGHTERS + i], "pattern": [shots[i]]}
                             for i in range(FIGHTERS)]}

    def progress(self, session: Session, seat: int) -> float:
        """Damage dealt minus damage taken, over the largest mothership defence (0 before the battle)."""
        result = session.result
        if result is None or "damage_taken" not in result.scores:
            return 0.0
        taken = result.scores["damage_taken"]
        other = "2" if seat == 1 else "1"
        return max(-1.0, min(1.0, (taken[other] - taken[str(seat)]) / self.config["mothership_defence"][1]))


def share(weights: list[int], lows: list[int], highs: list[int], total: int) -> list[int]:
    """Each slot's low, plus the points left shared in proportion to the weights, capped at its high.

    Points a capped slot cannot take go round again to the others; what no slot can take is left unspent."""
    points = list(lows)
    left = total - sum(lows)
    while left > 0:
        open_slots = [i for i, w in enumerate(weights) if w and points[i] < highs[i]]
        weight = sum(weights[i] for i in open_slots)
        if not weight:
            break
        given = 0
        for i in open_slots:
            extra = min(left * weights[i] // weight, highs[i] - points[i])
            points[i] += extra
            given += extra
        if not given:  # shares rounded down to nothing: one point each, heaviest first
            for i in sorted(open_slots, key=lambda i: -weights[i])[:left]:
                points[i] += 1
                given += 1
        left -= given
    return points
