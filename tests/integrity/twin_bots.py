"""Planted and honest bots for the behavioural twins' tests (sources as text: they are run on the
probes, in this process or as processes).

Galaxy:
- RESERVE: grown from the `greedy` starter: keeps two cruisers home, attacks the nearest planet
  it beats with a margin of one half, guesses defences its own way and scouts its best target.
- RESERVE_REWRITE: RESERVE written again from scratch (other structure, names, arithmetic and
  loops; planets walked from the last): other code, the same decisions.
- Honest: BOLD (a `greedy` derivative: a small margin, scouts the enemy home), CAREFUL (the same
  simple idea as RESERVE, converged on independently: a reserve, a margin, scouting the target,
  with its own numbers), SPLITTER (splits its fleet between the two nearest targets) and the
  starters themselves.
Mothership:
- THIRDS and THIRDS_REWRITE: one allocation rule, and the same rule written otherwise.
- Honest: HEAVY and LIGHT (both close to `balanced`: the same kind of rule, other shares).
"""

from __future__ import annotations

import itertools
import sys
import types
from typing import Any

_numbers = itertools.count()

RESERVE = '''
from armada.bot.galaxy import FleetOrder, GalaxyBot, Units
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Reserve"

    def guess(self, obs, planet, intel):
        for report in intel:
            if report.planet == planet.id:
                return report.garrison.mle
        if planet.is_neutral:
            return 12 + obs.turn
        return 30 + 2 * obs.turn

    def scout(self, obs):
        home = obs.my_planets()[0] if obs.my_planets() else None
        targets = [p for p in obs.planets if not p.is_mine]
        if home is None or not targets or obs.probes < 1:
            return []
        return [obs.nearest(home, targets)[0].id]

    def command(self, obs, intel, warnings):
        targets = [p for p in obs.planets if not p.is_mine]
        orders = []
        for planet in obs.my_planets():
            ships = planet.ships
            keep = 2 if ships.cruisers > 2 else 0
            force = Units(ships.battleships, ships.cruisers - keep, 0)
            if force.empty:
                continue
            for target in obs.nearest(planet, targets):
                if force.mle > 1.5 * self.guess(obs, target, intel):
                    orders.append(FleetOrder.of(planet.id, target.id, force))
                    break
        return orders


if __name__ == "__main__":
    run(Bot())
'''

RESERVE_REWRITE = '''
from armada.bot import galaxy as g
from armada.bot.runtime import run as go

NEUTRAL_BASE, ENEMY_BASE = 12, 30


def defence_estimate(turn, target, reports):
    seen = {r.planet: r.garrison.mle for r in reports}
    if target.id in seen:
        return seen[target.id]
    return NEUTRAL_BASE + turn if target.owner == 0 else ENEMY_BASE + turn * 2


class Raider(g.GalaxyBot):
    name = "Totally Different"

    def command(self, view, reports, _warnings):
        others = [q for q in view.planets if q.owner != view.seat]
        mine = [q for q in view.planets if q.owner == view.seat]
        fleets = []
        index = len(mine) - 1
        while index >= 0:
            base = mine[index]
            index -= 1
            garrison = base.garrison
            if garrison is None:
                continue
            bs, cr = garrison.battleships, garrison.cruisers
            if cr > 2:
                cr = cr - 2
            if bs + cr == 0:
                continue
            strength = 4 * bs + 2 * cr
            ranked = sorted(others, key=lambda q: (view.distance(base, q), view.relative(q)))
            chosen = next((q for q in ranked
                           if 2 * strength > 3 * defence_estimate(view.turn, q, reports)), None)
            if chosen is not None:
                fleets.append(g.FleetOrder(base.id, chosen.id, bs, cr))
        return fleets

    def scout(self, view):
        mine = [q for q in view.planets if q.owner == view.seat]
        if not mine or view.probes == 0:
            return []
        others = [q for q in view.planets if q.owner != view.seat]
        best = min(others, key=lambda q: (view.distance(mine[0], q), view.relative(q)), default=None)
        return [] if best is None else [best.id]


Bot = Raider

if __name__ == "__main__":
    go(Raider())
'''

BOLD = '''
from armada.bot.galaxy import FleetOrder, GalaxyBot
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Bold"

    def scout(self, obs):
        return [16 if obs.seat == 1 else 1][:obs.probes]

    def command(self, obs, intel, warnings):
        targets = [p for p in obs.planets if not p.is_mine]
        orders = []
        for planet in obs.my_planets():
            force = planet.ships
            if force.empty:
                continue
            for target in obs.nearest(planet, targets):
                guess = 15 + obs.turn if target.is_neutral else 40 + obs.turn
                if force.mle > 1.1 * guess:
                    orders.append(FleetOrder.of(planet.id, target.id, force))
                    break
        return orders


if __name__ == "__main__":
    run(Bot())
'''

CAREFUL = '''
from armada.bot.galaxy import FleetOrder, GalaxyBot, Units
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Careful"

    def scout(self, obs):
        mine = obs.my_planets()
        targets = [p for p in obs.planets if not p.is_mine]
        if not mine or not targets or obs.probes < 1:
            return []
        return [obs.nearest(mine[-1], targets)[0].id]

    def command(self, obs, intel, warnings):
        known = {r.planet: r.garrison.mle for r in intel}
        targets = [p for p in obs.planets if not p.is_mine]
        orders = []
        for planet in obs.my_planets():
            ships = planet.ships
            keep = 3 if ships.cruisers > 3 else 0
            force = Units(ships.battleships, ships.cruisers - keep, 0)
            if force.empty:
                continue
            for target in obs.nearest(planet, targets):
                guess = known.get(target.id, 10 + obs.turn if target.is_neutral else 35 + obs.turn)
                if force.mle > 1.3 * guess:
                    orders.append(FleetOrder.of(planet.id, target.id, force))
                    break
        return orders


if __name__ == "__main__":
    run(Bot())
'''

SPLITTER = '''
from armada.bot.galaxy import FleetOrder, GalaxyBot
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Splitter"

    def command(self, obs, intel, warnings):
        targets = [p for p in obs.planets if not p.is_mine]
        orders = []
        for planet in obs.my_planets():
            ships = planet.ships
            if ships.battleships + ships.cruisers < 4 or not targets:
                continue
            near = obs.nearest(planet, targets)[:2]
            half_b, half_c = ships.battleships // 2, ships.cruisers // 2
            orders.append(FleetOrder(planet.id, near[0].id, half_b, half_c))
            if len(near) > 1:
                orders.append(FleetOrder(planet.id, near[1].id, ships.battleships - half_b, ships.cruisers - half_c))
        return orders


if __name__ == "__main__":
    run(Bot())
'''

THIRDS = '''
from armada.bot.mothership import MothershipBot, Orders
from armada.bot.runtime import run


def clamp(value, bounds):
    return max(bounds[0], min(bounds[1], value))


class Bot(MothershipBot):
    name = "Thirds"

    def orders(self, config):
        mothership = clamp(config.total_points // 3, config.mothership_defence)
        each = (config.total_points - mothership) // 5
        attack = clamp(each * 2 // 3, config.fighter_attack)
        defence = clamp(each - attack, config.fighter_defence)
        orders = Orders.uniform(mothership, attack, defence, [2, 4, 1])
        return Orders.cheapest(config) if orders.validate(config) else orders


if __name__ == "__main__":
    run(Bot())
'''

THIRDS_REWRITE = '''
from armada.bot import mothership as ms
from armada.bot.runtime import run


class Allocator(ms.MothershipBot):
    name = "Nothing Alike"

    def orders(self, c):
        low, high = c.mothership_defence
        ship = min(high, max(low, c.total_points // 3))
        share = (c.total_points - ship) // 5
        a_low, a_high = c.fighter_attack
        hit = min(a_high, max(a_low, (2 * share) // 3))
        d_low, d_high = c.fighter_defence
        armour = min(d_high, max(d_low, share - hit))
        plan = ms.Orders.uniform(ship, hit, armour, [2, 4, 1])
        if plan.validate(c):
            plan = ms.Orders.cheapest(c)
        return plan


Bot = Allocator

if __name__ == "__main__":
    run(Allocator())
'''

HEAVY = THIRDS.replace('"Thirds"', '"Heavy"').replace("// 3, config.mothership", "* 2 // 5, config.mothership") \
    .replace("[2, 4, 1]", "[3]")
LIGHT = THIRDS.replace('"Thirds"', '"Light"').replace("// 3, config.mothership", "// 5, config.mothership") \
    .replace("each * 2 // 3", "each // 2").replace("[2, 4, 1]", "[2, 2, 3]")


def bot_of(source: str) -> Any:
    """A fresh bot object of a source (run in this process, its module named `planted_bot_N`)."""
    name = f"planted_bot_{next(_numbers)}"
    module = types.ModuleType(name)
    sys.modules[name] = module  # (a dataclass of the bot's looks its module up)
    exec(compile(source, "main.py", "exec"), module.__dict__)
    return module.Bot()
