"""The behavioural twins' part of bench/integrity.py: a labelled set of bots generated from the
SDK's starters, played on the probes in this process, and the twin check's time on 10,000.

- an *original* is an author's bot derived from a starter (Galaxy's `greedy`, Mothership's
  `greedy`): the starter's idea with its knobs picked at random, no two alike (`KNOBS`: Galaxy's
  reserve kept home, attack margin, share of the force sent, scouting rule and target order,
  960 bots;
  Mothership's mothership share, attack share and shot pattern, 240), so the originals are honest
  bots converging on the same simple strategy with their own choices, many differing in one knob
  only (the starters themselves are in the set too, as honest bots);
- a *twin* is an original put through two to four of these behaviour-preserving rewrites, each
  documented: `numbers` (every int literal n written `(n + k - k)`, k random), `locals` (every
  local variable assigned in a function renamed to a random word), `reorder` (each class's
  methods and the module's functions shuffled), `format` (reformatted by `ast.unparse`),
  `comments` (a comment every five lines) and `dead code` (unused statements and functions, as the
  copy part inserts them): other code, the same decisions (the tests' planted rewrite is written
  by hand instead);
- the labels: an original and its twins are twin pairs; every other pair is honest. An original
  whose mutations changed too few of its answers to count (`twins.min_own`: it plays as its
  starter) plants nothing: copying a starter's behaviour is not copying; its pairs are left out.
  An original that answers every probe exactly as an earlier one does (knobs that made no
  difference on the probes) is the same bot as far as behaviour can tell: its family is dropped
  (counted as `same behaviour`).

Every version is probed in process (`integrity.logic.probes.probe_with`, the sandbox's function
with an in-process connection), each version its own owner, unrated; a pair is reported when
`integrity.logic.twins.find` reports it. The speed figure: 10,000 signatures made of the
starters' answers and own answers drawn from a skewed pool (so common own answers, weak pairs
and twins all occur), through `find`.
"""

from __future__ import annotations

import ast
import random
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations, count
from typing import Any

from armada import botspec
from armada.referee.inprocess import InProcessBot
from armada_web.integrity.logic import probes, twins

_modules = count()


GALAXY = """
from armada.bot.galaxy import FleetOrder, GalaxyBot, Units
from armada.bot.runtime import run

RESERVE = {reserve}
MARGIN = {margin}
SEND = {send}


class Bot(GalaxyBot):
    name = "Derived"

    def guess(self, obs, planet, intel):
        for report in intel:
            if report.planet == planet.id:
                return report.garrison.mle
        high = self.config.get("neutral_launchers", [3, 15])[1]
        guess = high + obs.turn
        return guess if planet.is_neutral else 2 * guess

    def scout(self, obs):
        mine = obs.my_planets()
        others = [p for p in obs.planets if not p.is_mine]
        if not mine or not others or obs.probes < 1:
            return []
        {scout}

    def command(self, obs, intel, warnings):
        targets = [p for p in obs.planets if not p.is_mine]
        orders = []
        for planet in obs.my_planets():
            ships = planet.ships
            keep = min(RESERVE, ships.cruisers)
            force = Units(int(ships.battleships * SEND), int((ships.cruisers - keep) * SEND), 0)
            if force.empty:
                continue
            for target in {order}:
                if force.mle > MARGIN * self.guess(obs, target, intel):
                    orders.append(FleetOrder.of(planet.id, target.id, force))
                    break
        return orders


if __name__ == "__main__":
    run(Bot())
"""
MOTHERSHIP = """
from armada.bot.mothership import FIGHTERS, MothershipBot, Orders
from armada.bot.runtime import run


def clamp(value, bounds):
    return max(bounds[0], min(bounds[1], value))


class Bot(MothershipBot):
    name = "Derived"

    def orders(self, config):
        mothership = clamp(config.total_points * {share} // 100, config.mothership_defence)
        per_fighter = (config.total_points - mothership) // FIGHTERS
        attack = clamp(per_fighter * {attack} // 100, config.fighter_attack)
        defence = clamp(per_fighter - attack, config.fighter_defence)
        orders = Orders.uniform(mothership, attack, defence, {pattern})
        if orders.validate(config):
            orders = Orders.cheapest(config)
        return orders


if __name__ == "__main__":
    run(Bot())
"""
#: The knobs of each game's starter-derived template, and the values an author may pick.
KNOBS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "galaxy": (GALAXY, {
        "reserve": ("0", "1", "3", "5"), "margin": ("1.0", "1.3", "1.7", "2.2", "3.0"),
        "send": ("1.0", "0.75", "0.5"),
        "scout": ("return []", "return [obs.nearest(mine[0], others)[0].id]",
                  "return [obs.nearest(mine[0], others)[-1].id]",
                  "return [max(others, key=lambda p: (p.is_enemy, -obs.relative(p))).id]"),
        "order": ("obs.nearest(planet, targets)", "reversed(obs.nearest(planet, targets))",
                  "sorted(obs.nearest(planet, targets), key=lambda p: self.guess(obs, p, intel))",
                  "sorted(targets, key=lambda p: -obs.relative(p))"),
    }),
    "mothership": (MOTHERSHIP, {
        "share": ("15", "20", "25", "35", "40", "45"), "attack": ("30", "40", "60", "70", "75"),
        "pattern": ("[1]", "[2]", "[2, 3]", "[3, 2]", "[1, 2, 3]", "[4]", "[2, 2, 3]", "[5, 1]"),
    }),
}


def originals_of(game: str, rng: random.Random, count: int) -> list[str]:
    """`count` distinct authors' bots of `game`: the starter-derived template with knobs drawn at random."""
    template, knobs = KNOBS[game]
    seen: set[tuple[str, ...]] = set()
    found = []
    while len(found) < count:
        choice = tuple(rng.choice(values) for values in knobs.values())
        if choice not in seen:
            seen.add(choice)
            found.append(template.format(**dict(zip(knobs, choice, strict=True))))
    return found


def numbers(source: str, rng: random.Random) -> str:
    """Every int literal n written `(n + k - k)`."""
    tree = ast.parse(source)

    class Rewrite(ast.NodeTransformer):
        def visit_Constant(self, node: ast.Constant) -> ast.AST:
            if type(node.value) is int:
                k = rng.randrange(3, 97)
                return ast.parse(f"({node.value} + {k} - {k})", mode="eval").body
            return node

    return ast.unparse(ast.fix_missing_locations(Rewrite().visit(tree))) + "\n"


def local_names(source: str, rng: random.Random) -> str:
    """Every local variable a function assigns by a statement (`=`, `+=`, `for`; not its
    parameters, lambdas' or comprehensions' own names) renamed to a random word."""
    tree = ast.parse(source)
    for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        targets = [t for node in ast.walk(function) if isinstance(node, ast.Assign | ast.AugAssign | ast.For)
                   for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
        assigned = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        scoped = {a.arg for node in ast.walk(function) if isinstance(node, ast.Lambda) for a in node.args.args}
        scoped |= {n.id for node in ast.walk(function) if isinstance(node, ast.comprehension)
                   for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        new = {name: f"{rng.choice(WORDS)}_{rng.randrange(1000)}" for name in sorted(assigned - scoped)}
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and node.id in new:
                node.id = new[node.id]
    return ast.unparse(tree) + "\n"


def reorder(source: str, rng: random.Random) -> str:
    """Each class's methods and the module's functions shuffled."""
    tree = ast.parse(source)
    for holder in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
        spots = [i for i, n in enumerate(holder.body) if isinstance(n, ast.FunctionDef)]
        moved = [holder.body[i] for i in spots]
        rng.shuffle(moved)
        for i, node in zip(spots, moved, strict=True):
            holder.body[i] = node
    return ast.unparse(tree) + "\n"


def reformat(source: str, rng: random.Random) -> str:
    """Reformatted by ast.unparse."""
    return ast.unparse(ast.parse(source)) + "\n"


def comments(source: str, rng: random.Random) -> str:
    """A comment line before every fifth line (at that line's indentation)."""
    out = []
    for number, line in enumerate(source.splitlines(), start=1):
        if number % 5 == 0 and line.strip() and not line.rstrip().endswith(("(", "[", "{", ",", "\\")):
            out.append(f"{line[: len(line) - len(line.lstrip())]}# {rng.choice(WORDS)} {rng.choice(WORDS)}")
        out.append(line)
    return "\n".join(out) + "\n"


def dead_code(source: str, rng: random.Random) -> str:
    """Unused statements at the start of each function body and one to three unused functions."""
    tree = ast.parse(source)
    for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        if rng.random() < 0.5:
            statement = f"{rng.choice(WORDS)}_unused = {rng.randrange(9)} * len(str({rng.randrange(99)}))"
            function.body.insert(0, ast.parse(statement).body[0])
    for _ in range(rng.randint(1, 3)):
        tree.body.insert(len(tree.body) - 1, ast.parse(
            f"def {rng.choice(WORDS)}_{rng.choice(WORDS)}(items, limit={rng.randrange(2, 9)}):\n"
            f"    return sum(item * {rng.randrange(1, 7)} for item in items[:limit])\n").body[0])
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


REWRITES: dict[str, Callable[[str, random.Random], str]] = {
    "numbers": numbers, "locals": local_names, "reorder": reorder, "format": reformat, "comments": comments,
    "dead code": dead_code}
WORDS = ("alpha", "beta", "gamma", "delta", "omega", "fleet", "star", "orbit", "nova", "comet", "pulse")


@dataclass(frozen=True)
class Version:
    """One generated version of `game`: its source, its family (None: a starter) and how it was made."""

    game: str
    source: str
    family: int | None
    how: str


def labelled_set(rng: random.Random, originals: int) -> list[Version]:
    """Per game: the starters, `originals` authors' bots, and one or two twins of most of them."""
    versions = []
    family = 0
    for game in botspec.GAMES:
        bases = [botspec.starter_file(name, game).read_text() for name in botspec.builtin_names(game)]
        versions.extend(Version(game, base, None, "starter") for base in bases)
        for n, original in enumerate(originals_of(game, rng, originals)):
            versions.append(Version(game, original, family, "original"))
            for _twin in range(rng.choice((0, 1, 1, 2)) if n else 1):
                chosen = rng.sample(sorted(REWRITES), rng.randint(2, 4))
                source = original
                for name in chosen:
                    source = REWRITES[name](source, rng)
                versions.append(Version(game, source, family, "+".join(chosen)))
            family += 1
    return versions


def bot_of(source: str) -> Any:
    name = f"bench_bot_{next(_modules)}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, "main.py", "exec"), module.__dict__)
    return module.Bot()


@dataclass
class TwinTally:
    """Twin pairs planted, pairs reported and both; the scores at the edges; the bots that failed."""

    planted: int = 0
    reported: int = 0
    hits: int = 0
    lowest_twin: float = 1.0
    highest_honest: float = 0.0
    failed: int = 0
    left_out: int = 0
    same_behaviour: int = 0


def quality(rng: random.Random, originals: int, tally: TwinTally) -> None:
    """One labelled set probed and checked; the pairs counted in `tally`."""
    versions = labelled_set(rng, originals)
    for game in botspec.GAMES:
        probe_set = probes.probe_set(game)
        mine = [v for v in versions if v.game == game]
        signatures = []
        behaviours: dict[tuple[int, ...], int | None] = {}
        dropped: set[int | None] = set()
        for key, version in enumerate(mine):
            if version.family in dropped:
                continue
            try:
                answers, fault = probes.probe_with(probe_set, lambda s=version.source: InProcessBot(bot_of(s)))
            except Exception:  # a rewrite that does not even load: an invalid version, never probed
                tally.failed += 1
                continue
            tally.failed += bool(fault)
            hashes = probes.signature(game, answers)
            if version.how == "original" and behaviours.get(hashes, version.family) != version.family:
                dropped.add(version.family)  # another author's bot answers every probe alike: the same bot
                tally.same_behaviour += 1
                continue
            behaviours.setdefault(hashes, version.family)
            signatures.append(twins.Signature(key, key, None, hashes))
        found, population = twins.find(signatures, probe_set.shared())
        reported = {(t.a, t.b) for t in found}
        enough = twins.min_own(len(probe_set.turns))
        keys = [s.key for s in signatures]
        plays_as_starter = {k for k in keys if sum(1 for h in population.owns[k] if h) < enough}
        left_out = {(a, b) for a, b in combinations(keys, 2) if mine[a].family is not None
                    and mine[a].family == mine[b].family and (a in plays_as_starter or b in plays_as_starter)}
        tally.left_out += len(left_out)
        planted = {(a, b) for a, b in combinations(keys, 2)
                   if mine[a].family is not None and mine[a].family == mine[b].family} - left_out
        reported -= left_out
        for a, b in set(combinations(keys, 2)) - left_out:
            score = population.agreement(a, b).score
            if (a, b) in planted:
                tally.lowest_twin = min(tally.lowest_twin, score)
            else:
                tally.highest_honest = max(tally.highest_honest, score)
        for a, b in sorted(planted - reported)[:3]:
            print(f"  missed twin ({game}): {mine[b].how} of family {mine[b].family} "
                  f"(agreement {population.agreement(a, b).score:.2f})")
        for a, b in sorted(reported - planted)[:3]:
            print(f"  false alarm ({game}): {mine[a].how} {mine[a].family} ~ {mine[b].how} {mine[b].family}")
        tally.planted += len(planted)
        tally.reported += len(reported)
        tally.hits += len(reported & planted)


def scale_seconds(rng: random.Random, size: int) -> float:
    """Seconds of `twins.find` on `size` Galaxy signatures: each takes the answer of a random
    starter at most turns, and an own answer elsewhere drawn from a skewed pool (popular answers
    shared by many); one in fifty is a near-copy (90% of its turns) of another."""
    probe_set = probes.probe_set("galaxy")
    starters = list(probe_set.starters.values())
    positions = len(probe_set.turns)
    rows: list[tuple[int, ...]] = []
    for n in range(size):
        if n and n % 50 == 0:
            source = rows[rng.randrange(len(rows))]
            rows.append(tuple(h if rng.random() < 0.9 else rng.getrandbits(62) for h in source))
            continue
        base = rng.choice(starters)
        own_share = rng.uniform(0.3, 0.9)
        rows.append(tuple(base[i] if rng.random() > own_share else 1_000_000 * i + int(rng.paretovariate(1.2))
                          for i in range(positions)))
    signatures = [twins.Signature(n, n, rng.gauss(25, 4), row) for n, row in enumerate(rows)]
    started = time.perf_counter()
    found, population = twins.find(signatures, probe_set.shared())
    elapsed = time.perf_counter() - started
    print(f"  {size} signatures of {positions} turns: {len(population.candidates())} candidate pairs, "
          f"{len(found)} reported, in {elapsed:.1f} s")
    return elapsed

