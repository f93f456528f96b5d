"""Write a Galaxy bot: subclass `GalaxyBot`, implement `scout` and `command`.

    from armada.bot.galaxy import FleetOrder, GalaxyBot
    from armada.bot.runtime import run

    class Bot(GalaxyBot):
        def scout(self, obs):                       # -> planet ids to probe (GX-8)
            return [p.id for p in obs.neutral_planets()][: obs.probes]

        def command(self, obs, intel, warnings):    # -> fleet orders (GX-10)
            return []

    if __name__ == "__main__":
        run(Bot())

The package's modules: `bot` (GalaxyBot), `messages` (the typed views of the JSON and
`FleetOrder`), `observation`, `memory` (IntelMemory), `grid` (geometry), `battle`
(battle prediction) and `parse` (strict JSON readers). See docs/bot-library.md.
"""

from armada.bot.galaxy.battle import BattleOutcome, apply_losses, battle_outcome, captures
from armada.bot.galaxy.bot import GalaxyBot, parse_intel, probe_ids
from armada.bot.galaxy.grid import arrival_turn, distance, home, mirror, path, travel_time
from armada.bot.galaxy.memory import IntelMemory
from armada.bot.galaxy.messages import BattleReport, BattleSide, Fleet, FleetOrder, Intel, Planet, Units, mle
from armada.bot.galaxy.observation import Observation

__all__ = [
    "BattleOutcome",
    "BattleReport",
    "BattleSide",
    "Fleet",
    "FleetOrder",
    "GalaxyBot",
    "Intel",
    "IntelMemory",
    "Observation",
    "Planet",
    "Units",
    "apply_losses",
    "arrival_turn",
    "battle_outcome",
    "captures",
    "distance",
    "home",
    "mirror",
    "mle",
    "parse_intel",
    "path",
    "probe_ids",
    "travel_time",
]
