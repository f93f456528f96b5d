"""Galaxy starter bot "greedy": every planet attacks the nearest planet it thinks it can beat.

It never uses its probes. What it "knows" about a foreign planet is a guess: the largest
starting defence of a neutral planet plus its average growth, or what it saw of the
planet's defenders in its own battle reports. It keeps nothing at home but launchers.
"""

from __future__ import annotations

from armada.bot.galaxy import FleetOrder, GalaxyBot, Intel, Observation, Planet
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Greedy"

    def __init__(self) -> None:
        super().__init__()
        # planet id -> (turn seen, defence MLE seen) from our battle reports
        self.seen: dict[int, tuple[int, int]] = {}

    def guess_defence(self, obs: Observation, planet: Planet) -> int:
        """Our estimate of a foreign planet's defence (MLE) this turn."""
        high = self.config.get("neutral_launchers", [3, 15])[1]
        growth_low, growth_high = self.config.get("neutral_growth", [0, 2])
        growth = (growth_low + growth_high) / 2
        if planet.id in self.seen:
            turn, defence = self.seen[planet.id]
            return int(defence + growth * (obs.turn - turn))
        if planet.is_neutral:
            return int(high + growth * (obs.turn - 1))
        return 2 * int(high + growth * (obs.turn - 1))  # an enemy planet: assume it is stronger

    def learn(self, obs: Observation) -> None:
        """Remember what defended a planet when one of our attacks failed there."""
        for battle in obs.battles:
            if battle.new_owner == obs.seat:
                self.seen.pop(battle.planet, None)
                continue
            defender = next((s for s in battle.sides if s.role == "defender"), None)
            if defender is not None:
                self.seen[battle.planet] = (obs.turn, defender.after.mle)

    def command(self, obs: Observation, intel: list[Intel], warnings: list[str]) -> list[FleetOrder]:
        self.learn(obs)
        targets = [p for p in obs.planets if not p.is_mine]
        orders = []
        for planet in obs.my_planets():
            force = planet.ships  # everything that can move
            if force.empty:
                continue
            for target in obs.nearest(planet, targets):
                if force.mle > self.guess_defence(obs, target):
                    orders.append(FleetOrder.of(planet.id, target.id, force))
                    break
        return orders


if __name__ == "__main__":
    run(Bot())
