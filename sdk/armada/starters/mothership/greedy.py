"""Mothership Down starter bot "greedy": one simple idea, applied greedily.

Guard the mothership with a fixed 30% of the points, split the rest evenly between attack
and defence of five identical fighters, and fire steady shots of 3. It beats random orders
most of the time but wastes points on a mothership that is rarely reached.
"""

from __future__ import annotations

from armada.bot.mothership import FIGHTERS, MothershipBot, MothershipConfig, Orders
from armada.bot.runtime import run


def clamp(value: int, bounds: tuple[int, int]) -> int:
    return max(bounds[0], min(bounds[1], value))


class Bot(MothershipBot):
    name = "Greedy Guardians"

    def orders(self, config: MothershipConfig) -> Orders:
        mothership = clamp(config.total_points * 30 // 100, config.mothership_defence)
        per_fighter = (config.total_points - mothership) // FIGHTERS
        attack = clamp(per_fighter // 2, config.fighter_attack)
        defence = clamp(per_fighter - attack, config.fighter_defence)
        orders = Orders.uniform(mothership, attack, defence, [min(3, attack)])
        if orders.validate(config):  # an unusual config: fall back to the cheapest legal orders
            orders = Orders.cheapest(config)
        return orders


if __name__ == "__main__":
    run(Bot())
