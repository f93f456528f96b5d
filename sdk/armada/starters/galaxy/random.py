"""Galaxy starter bot "random": legal but aimless probes and fleets.

The weakest starter, useful as a first opponent. Its choices come from a generator
seeded with ARMADA_BOT_SEED (`bot_seed()`: the match seed and its seat), so the same
`--seed` gives the same game and another seed another one. (This file is named
like the standard `random` module, so it uses Armada's own seeded generator instead.)
"""
# ruff: noqa: A005  (the file name is the bot's name, `builtin:random`)

from __future__ import annotations

from armada.bot import bot_seed
from armada.bot.galaxy import FleetOrder, GalaxyBot, Intel, Observation
from armada.bot.runtime import run
from armada.games.rng import Rng


class Bot(GalaxyBot):
    name = "Random"

    def __init__(self) -> None:
        super().__init__()
        self.rng: Rng | None = None

    def _rng(self, obs: Observation) -> Rng:
        # Seeded once, from the bot seed (the seat when run by hand): the same game, the same choices.
        if self.rng is None:
            self.rng = Rng(bot_seed(default=obs.seat))
        return self.rng

    def scout(self, obs: Observation) -> list[int]:
        rng = self._rng(obs)
        # Any planet that is not ours is a legal probe target (GX-8).
        others = [p.id for p in obs.planets if not p.is_mine]
        count = rng.randint(0, min(obs.probes, len(others)))
        return rng.sample(others, count)

    def command(self, obs: Observation, intel: list[Intel], warnings: list[str]) -> list[FleetOrder]:
        rng = self._rng(obs)
        orders = []
        for planet in obs.my_planets():
            ships = planet.ships  # launchers never move
            if ships.empty or rng.random() < 0.5:
                continue  # half the time a planet does nothing
            battleships = rng.randint(0, ships.battleships)
            cruisers = rng.randint(0, ships.cruisers)
            if battleships + cruisers == 0:
                continue  # an empty fleet would be dropped (GX-10)
            target = rng.choice([p.id for p in obs.planets if p.id != planet.id])
            orders.append(FleetOrder(planet.id, target, battleships, cruisers))
        return orders


if __name__ == "__main__":
    run(Bot())
