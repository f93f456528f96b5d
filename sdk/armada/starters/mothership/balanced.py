"""Mothership Down starter bot "balanced": win the fighter duels, then hit the mothership.

Battles are decided at the five positions (MD-4): a fighter that destroys its opponent
spends the rest of its attack on the enemy mothership (MD-6). So this bot keeps the
mothership small (10% of the points: few enemy shots ever reach it), and gives each
fighter about 60% attack and 40% defence of its share: enough defence to survive a typical
opening shot, shots of 5 that destroy a typical fighter in one or two rounds, and attack
left over for the mothership.
"""

from __future__ import annotations

from armada.bot.mothership import FIGHTERS, MothershipBot, MothershipConfig, Orders
from armada.bot.runtime import run


def clamp(value: int, bounds: tuple[int, int]) -> int:
    return max(bounds[0], min(bounds[1], value))


class Bot(MothershipBot):
    name = "Balanced Brigade"

    def orders(self, config: MothershipConfig) -> Orders:
        mothership = clamp(config.total_points // 10, config.mothership_defence)
        per_fighter = (config.total_points - mothership) // FIGHTERS
        attack = clamp(round(per_fighter * 0.6), config.fighter_attack)
        defence = clamp(per_fighter - attack, config.fighter_defence)
        shot = min(5, attack)
        orders = Orders.uniform(mothership, attack, defence, [shot])
        if orders.validate(config):  # an unusual config: fall back to the cheapest legal orders
            orders = Orders.cheapest(config)
        return orders


if __name__ == "__main__":
    run(Bot())
