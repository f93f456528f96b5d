"""Planted and honest bots for the copy detector's tests (sources as text: they are read, never run).

- ORIGINAL: a Galaxy bot grown from the `greedy` starter with a good deal of code of its own.
- RENAMED_REORDERED: ORIGINAL with every name of its own changed, its methods and functions in
  another order, its comments and docstrings rewritten and its layout changed.
- DEAD_CODE: ORIGINAL with unused functions, unused statements and a dead branch inserted.
- HONEST_FRONTIER and HONEST_WEAKEST: two authors' own bots that converge on the same simple
  strategy (attack the weakest near planet, keep a reserve) written each in their own way.
- STARTER_EDIT_1 and STARTER_EDIT_2: two honest derivatives of `greedy` (constants and a line changed).
- TINY_1 and TINY_2: a few lines each, alike.
"""

from __future__ import annotations

from armada.botspec import starter_file

GREEDY = starter_file("greedy", "galaxy").read_text()

ORIGINAL = '''"""Frontier: expand to the cheapest planets first, hold a reserve at home, strike late."""

from __future__ import annotations

from armada.bot.galaxy import FleetOrder, GalaxyBot, Intel, Observation, Planet, Units
from armada.bot.runtime import run

RESERVE_SHARE = 0.25
LATE_GAME = 0.8


def spread(values: list[int]) -> float:
    """The spread of some numbers (0 for fewer than two)."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5


class Bot(GalaxyBot):
    name = "Frontier"

    def __init__(self) -> None:
        super().__init__()
        self.estimates: dict[int, tuple[int, int]] = {}
        self.failures: dict[int, int] = {}
        self.history: list[int] = []

    def scout(self, obs: Observation) -> list[int]:
        # probe the foreign planets we know least about, nearest first
        home = obs.planet(obs.home)
        unknown = [p for p in obs.nearest(home, [p for p in obs.planets if not p.is_mine])
                   if obs.turn - self.estimates.get(p.id, (-99, 0))[0] > 4]
        return [p.id for p in unknown][: obs.probes]

    def remember(self, obs: Observation, intel: list[Intel]) -> None:
        for report in intel:
            strength = report.garrison.mle if report.garrison is not None else 0
            self.estimates[report.planet] = (obs.turn, strength)
        for battle in obs.battles:
            if battle.new_owner != obs.seat:
                self.failures[battle.planet] = self.failures.get(battle.planet, 0) + 1
        self.history.append(obs.my_mle())

    def estimate(self, obs: Observation, planet: Planet) -> int:
        turn, strength = self.estimates.get(planet.id, (0, 0))
        growth = sum(self.config.get("neutral_growth", [0, 2])) / 2
        penalty = 3 * self.failures.get(planet.id, 0)
        if turn == 0:
            base = self.config.get("neutral_launchers", [3, 15])[1]
            return int(base + growth * obs.turn) + penalty
        return int(strength + growth * (obs.turn - turn)) + penalty

    def value(self, obs: Observation, origin: Planet, target: Planet) -> float:
        travel = obs.travel_time(origin, target)
        cost = self.estimate(obs, target)
        bonus = 5 if target.is_enemy else 0
        return (10 + bonus) / (1 + travel) - cost / 20

    def reserve(self, obs: Observation, planet: Planet) -> int:
        if planet.id != obs.home:
            return 0
        late = obs.turn > LATE_GAME * self.config.get("max_turns", 100)
        trend = spread(self.history[-10:])
        share = 0.0 if late else RESERVE_SHARE + min(0.25, trend / 100)
        return int(planet.ships.mle * share)

    def command(self, obs: Observation, intel: list[Intel], warnings: list[str]) -> list[FleetOrder]:
        self.remember(obs, intel)
        orders = []
        targets = [p for p in obs.planets if not p.is_mine]
        for planet in obs.my_planets():
            force = planet.ships
            spare = force.mle - self.reserve(obs, planet)
            if force.empty or spare <= 0:
                continue
            ranked = sorted(targets, key=lambda t: -self.value(obs, planet, t))
            for target in ranked[:3]:
                if spare > 1.2 * self.estimate(obs, target):
                    send = Units(force.battleships, force.cruisers, 0)
                    orders.append(FleetOrder.of(planet.id, target.id, send))
                    break
        return orders


if __name__ == "__main__":
    run(Bot())
'''

RENAMED_REORDERED = '''# Expanding bot (my own work)
from armada.bot.galaxy import FleetOrder, GalaxyBot, Intel, Observation, Planet, Units
from armada.bot.runtime import run

KEEP_AT_HOME = 0.3
ENDGAME = 0.75


class Bot(GalaxyBot):
    name = "Wanderer"

    def __init__(self):
        super().__init__()
        self.seen = {}
        self.lost = {}
        self.power_log = []

    def command(self, o, reports, w):
        self.learn(o, reports)
        out = []
        goals = [x for x in o.planets if not x.is_mine]
        for src in o.my_planets():
            fleet = src.ships
            free = fleet.mle - self.keep(o, src)
            if fleet.empty or free <= 0: continue
            best = sorted(goals, key=lambda g: -self.worth(o, src, g))
            for goal in best[:3]:
                if free > 1.5 * self.guess(o, goal):
                    part = Units(fleet.battleships, fleet.cruisers, 0)
                    out.append(FleetOrder.of(src.id, goal.id, part))
                    break
        return out

    def keep(self, o, src):
        if src.id != o.home: return 0
        endgame = o.turn > ENDGAME * self.config.get("max_turns", 100)
        t = deviation(self.power_log[-10:])
        frac = 0.0 if endgame else KEEP_AT_HOME + min(0.25, t / 100)
        return int(src.ships.mle * frac)

    def scout(self, o):
        h = o.planet(o.home)
        todo = [x for x in o.nearest(h, [x for x in o.planets if not x.is_mine])
                if o.turn - self.seen.get(x.id, (-99, 0))[0] > 4]
        return [x.id for x in todo][:o.probes]

    def worth(self, o, src, goal):
        t = o.travel_time(src, goal)
        price = self.guess(o, goal)
        extra = 5 if goal.is_enemy else 0
        return (10 + extra) / (1 + t) - price / 20

    def learn(self, o, reports):
        for r in reports:
            s = r.garrison.mle if r.garrison is not None else 0
            self.seen[r.planet] = (o.turn, s)
        for b in o.battles:
            if b.new_owner != o.seat:
                self.lost[b.planet] = self.lost.get(b.planet, 0) + 1
        self.power_log.append(o.my_mle())

    def guess(self, o, goal):
        when, s = self.seen.get(goal.id, (0, 0))
        g = sum(self.config.get("neutral_growth", [0, 2])) / 2
        malus = 3 * self.lost.get(goal.id, 0)
        if when == 0:
            b = self.config.get("neutral_launchers", [3, 15])[1]
            return int(b + g * o.turn) + malus
        return int(s + g * (o.turn - when)) + malus


def deviation(xs):
    if len(xs) < 2: return 0.0
    m = sum(xs) / len(xs)
    return (sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5


if __name__ == "__main__":
    run(Bot())
'''


def _with_dead_code(source: str) -> str:
    """ORIGINAL with two unused functions, unused statements in three methods and a dead branch."""
    junk = '''

def unused_helper(items, limit=5):
    total = 0
    for item in items[:limit]:
        if item % 3:
            total += item * 2
    return total


def another_unused(text):
    words = text.split()
    return {word: len(word) for word in words if word}
'''
    source = source.replace("        self.history: list[int] = []\n",
                            "        self.history: list[int] = []\n        self.debug_counter = 0\n")
    source = source.replace("        travel = obs.travel_time(origin, target)\n",
                            "        travel = obs.travel_time(origin, target)\n        unused = len(str(travel)) * 0\n")
    source = source.replace("        self.remember(obs, intel)\n",
                            "        self.remember(obs, intel)\n        if False:\n            self.log('never')\n")
    return source.replace("\n\nclass Bot(GalaxyBot):", junk + "\n\nclass Bot(GalaxyBot):")


DEAD_CODE = _with_dead_code(ORIGINAL)

HONEST_FRONTIER = '''"""Take the weakest planet in reach; keep some ships at home."""

from armada.bot.galaxy import FleetOrder, GalaxyBot
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Weak first"

    def scout(self, obs):
        home = obs.planet(obs.home)
        others = obs.nearest(home, obs.neutral_planets() + obs.enemy_planets())
        return [p.id for p in others[: obs.probes]]

    def command(self, obs, intel, warnings):
        known = {report.planet: report.garrison.mle for report in intel if report.garrison}
        orders = []
        for mine in obs.my_planets():
            keep = mine.ships.mle // 4 if mine.id == obs.home else 0
            available = mine.ships.mle - keep
            if available <= 0:
                continue
            candidates = []
            for planet in obs.nearest(mine, obs.neutral_planets() + obs.enemy_planets())[:5]:
                defence = known.get(planet.id, 10 + obs.turn)
                candidates.append((defence, obs.distance(mine, planet), planet))
            candidates.sort(key=lambda c: (c[0], c[1]))
            for defence, _distance, planet in candidates:
                if available > defence:
                    orders.append(FleetOrder.of(mine.id, planet.id, mine.ships))
                    break
        return orders


if __name__ == "__main__":
    run(Bot())
'''

HONEST_WEAKEST = '''from armada.bot.galaxy import FleetOrder, GalaxyBot, Observation
from armada.bot.runtime import run

HOME_GUARD = 0.2


def weakest_reachable(obs: Observation, origin, strength: int, seen: dict[int, int]):
    """The planet nearest `origin` among the five weakest we can beat."""
    options = sorted(
        (p for p in obs.planets if p.owner != obs.seat),
        key=lambda p: seen.get(p.id, 12 + 2 * obs.turn),
    )[:5]
    beatable = [p for p in options if seen.get(p.id, 12 + 2 * obs.turn) < strength]
    if not beatable:
        return None
    return min(beatable, key=lambda p: obs.distance(origin, p))


class Bot(GalaxyBot):
    name = "Scavenger"

    def __init__(self):
        super().__init__()
        self.seen = {}

    def scout(self, obs):
        foreign = [p for p in obs.planets if p.owner != obs.seat]
        foreign.sort(key=lambda p: obs.distance(obs.home, p))
        return [p.id for p in foreign][: obs.probes]

    def command(self, obs, intel, warnings):
        for report in intel:
            if report.garrison is not None:
                self.seen[report.planet] = report.garrison.mle
        result = []
        for planet in obs.my_planets():
            strength = planet.ships.mle
            if planet.id == obs.home:
                strength = int(strength * (1 - HOME_GUARD))
            target = weakest_reachable(obs, planet, strength, self.seen)
            if target is not None and not planet.ships.empty:
                result.append(FleetOrder.of(planet.id, target.id, planet.ships))
        return result


if __name__ == "__main__":
    run(Bot())
'''

STARTER_EDIT_1 = (GREEDY.replace('name = "Greedy"', 'name = "My greedy"')
                  .replace("return 2 * int(", "return 3 * int(")
                  .replace("if force.mle > self.guess_defence(obs, target):",
                           "if force.mle > self.guess_defence(obs, target) + 2:"))
STARTER_EDIT_2 = (GREEDY.replace('name = "Greedy"', 'name = "Greedier"')
                  .replace("[3, 15]", "[3, 12]")
                  .replace("for target in obs.nearest(planet, targets):",
                           "for target in obs.nearest(planet, targets)[:4]:"))

TINY_1 = '''from armada.bot.galaxy import GalaxyBot
from armada.bot.runtime import run


class Bot(GalaxyBot):
    def scout(self, obs):
        return [p.id for p in obs.neutral_planets()][: obs.probes]


run(Bot())
'''
TINY_2 = TINY_1.replace("neutral_planets", "enemy_planets")
