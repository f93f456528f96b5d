"""Mothership Down's numbers for a learner, in numpy alone (docs/rl.md, "Mothership Down"): what
`MothershipCodec` computes.

This file needs nothing but numpy and `armada.games.mothership.config`, not gymnasium, so a bot
can carry a copy of it (the bot image has numpy, torch and onnxruntime but not gymnasium) and turn
its policy's action into orders exactly as the policy was trained (docs/rl.md, "From a policy to
a bot"):

- `encode(config, seat)`: the observation, a float32 vector of CONFIG_FEATURES (the orders request
  says nothing but the configuration, MD-11: a race learns nothing of its opponent);
- `decode(action, config)`: valid orders (MD-1, MD-2) from an action of WEIGHTS x SLOTS then
  SHOTS x FIGHTERS: eleven weights (the mothership's defence, the five fighters' attack, the five
  fighters' defence) share the points left after every minimum, in proportion, capped at each
  maximum; then each fighter's shot strength (1..SHOTS), its whole pattern;
- `share(weights, lows, highs, total)`: that sharing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from armada.games.mothership.config import FIGHTERS

CONFIG_FEATURES = ("seat", "total_points", "max_pattern", "mothership_defence_min", "mothership_defence_max",
                   "fighter_attack_min", "fighter_attack_max", "fighter_defence_min", "fighter_defence_max")
#: Weight levels of each allocation (0 = the minimum only).
WEIGHTS = 10
#: Shot strengths a fighter's pattern can take (1..SHOTS).
SHOTS = 5
#: The allocations the weights share points between: the mothership's defence, then each fighter's
#: attack, then each fighter's defence.
SLOTS = 1 + 2 * FIGHTERS


def encode(config: dict[str, Any], seat: int) -> np.ndarray:
    """The seat and the configuration's limits (the same before and after the battle)."""
    return np.array([seat, config["total_points"], config["max_pattern"], *config["mothership_defence"],
                     *config["fighter_attack"], *config["fighter_defence"]], dtype=np.float32)


def bounds(config: dict[str, Any]) -> tuple[list[int], list[int]]:
    """Each slot's minimum and maximum points, in the slots' order."""
    limits = [config["mothership_defence"]] + [config["fighter_attack"]] * FIGHTERS \
        + [config["fighter_defence"]] * FIGHTERS
    return [lo for lo, _ in limits], [hi for _, hi in limits]


def decode(action: Any, config: dict[str, Any]) -> dict[str, Any]:
    """Valid orders: minimums, plus the spare points shared by weight, plus one shot strength per fighter."""
    values = np.asarray(action, dtype=np.int64).reshape(-1).tolist()
    weights = [min(max(w, 0), WEIGHTS - 1) for w in values[:SLOTS]]
    shots = [min(max(s, 0), SHOTS - 1) + 1 for s in values[SLOTS:]]
    lows, highs = bounds(config)
    points = share(weights, lows, highs, config["total_points"])
    return {"mothership": {"defence": points[0]},
            "fighters": [{"attack": points[1 + i], "defence": points[1 + FIGHTERS + i], "pattern": [shots[i]]}
                         for i in range(FIGHTERS)]}


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
