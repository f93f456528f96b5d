"""The battle of two races (MD-4..MD-8): a round-by-round simulator that records every round,
and a fast exact shortcut for leagues.

The shortcut rests on two facts of the rules: a fighter's shots depend only on its own attack
and pattern (MD-2), and the five positions never interact (MD-4, MD-6) except through the end
of the battle (MD-7). So each position is a duel solved with prefix sums, and only the
mothership damage needs a per-round scan, and only when a mothership may fall.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from armada.games.mothership.config import DEFAULT_CONFIG, MothershipConfig
from armada.games.mothership.orders import RaceOrders, parse_orders

#: A fighter never dies / a position index beyond any battle.
_NEVER = 1 << 60


@dataclass(frozen=True)
class BattleResult:
    """How a battle ended. Side 1 is the first orders given, side 2 the second.

    winner: 1, 2 or None (draw); outcome: "destruction", "damage" or "draw" (MD-8);
    rounds: rounds fought; damage_taken: defence each mothership lost (never more than it had);
    mothership_left: defence each mothership has left (0: destroyed).
    """

    winner: int | None
    outcome: str
    rounds: int
    damage_taken: tuple[int, int]
    mothership_left: tuple[int, int]

    @property
    def destroyed(self) -> tuple[bool, bool]:
        """Whether each mothership was destroyed."""
        return (self.mothership_left[0] == 0, self.mothership_left[1] == 0)


def decide(defence: tuple[int, int], taken: tuple[int, int]) -> tuple[int | None, str]:
    """Winner and outcome from each mothership's starting defence and damage taken (MD-8)."""
    down_1 = taken[0] >= defence[0]
    down_2 = taken[1] >= defence[1]
    if down_1 and down_2:
        return None, "draw"
    if down_1:
        return 2, "destruction"
    if down_2:
        return 1, "destruction"
    if taken[0] == taken[1]:
        return None, "draw"
    return (1 if taken[0] < taken[1] else 2), "damage"


def _as_orders(orders: RaceOrders | dict[str, Any], config: MothershipConfig) -> RaceOrders:
    return orders if isinstance(orders, RaceOrders) else parse_orders(orders, config)


# --- the round-by-round simulator -----------------------------------------------------------------


def simulate(
    orders_1: RaceOrders | dict[str, Any],
    orders_2: RaceOrders | dict[str, Any],
    config: MothershipConfig = DEFAULT_CONFIG,
) -> tuple[BattleResult, list[dict[str, Any]]]:
    """Fight round by round; returns the result and one event per round (see `round_event`)."""
    sides = (_as_orders(orders_1, config), _as_orders(orders_2, config))
    start = (sides[0].mothership, sides[1].mothership)
    mothership = list(start)
    attack = [[f.attack for f in s.fighters] for s in sides]
    defence = [[f.defence for f in s.fighters] for s in sides]
    fired = [[0] * len(s.fighters) for s in sides]
    events: list[dict[str, Any]] = []
    rounds = 0
    while True:
        rounds += 1
        alive = [[d > 0 for d in defence[s]] for s in (0, 1)]
        # MD-5: every shot is computed from the state at the start of the round ...
        shots: list[list[tuple[int, int]]] = [[], []]
        for s in (0, 1):
            for i, fighter in enumerate(sides[s].fighters):
                if alive[s][i] and attack[s][i] > 0:
                    pattern = fighter.pattern
                    shots[s].append((i, min(pattern[fired[s][i] % len(pattern)], attack[s][i])))
        # ... then applied (MD-6).
        records: list[list[dict[str, Any]]] = [[], []]
        for s in (0, 1):
            enemy = 1 - s
            for i, strength in shots[s]:
                attack[s][i] -= strength
                fired[s][i] += 1
                if alive[enemy][i]:
                    defence[enemy][i] = max(0, defence[enemy][i] - strength)
                    target, destroyed = "fighter", defence[enemy][i] == 0
                else:
                    before = mothership[enemy]
                    mothership[enemy] -= strength
                    target, destroyed = "mothership", before > 0 >= mothership[enemy]
                records[s].append({"fighter": i + 1, "strength": strength, "target": target, "destroyed": destroyed})
        events.append(round_event(rounds, records, mothership, attack, defence))
        # MD-7: a mothership down, or nobody can fire any more.
        if mothership[0] <= 0 or mothership[1] <= 0:
            break
        if not any(a > 0 and d > 0 for s in (0, 1) for a, d in zip(attack[s], defence[s], strict=True)):
            break
    taken = (min(start[0] - mothership[0], start[0]), min(start[1] - mothership[1], start[1]))
    winner, outcome = decide(start, taken)
    left = (start[0] - taken[0], start[1] - taken[1])
    return BattleResult(winner, outcome, rounds, taken, left), events


def round_event(
    number: int,
    shots: list[list[dict[str, Any]]],
    mothership: list[int],
    attack: list[list[int]],
    defence: list[list[int]],
) -> dict[str, Any]:
    """One round as replay data: per side, the shots its fighters fired and its board after the round.

    `{"type": "round", "round": n, "sides": [{"seat": 1, "shots": [{"fighter": 1, "strength": 2,
    "target": "fighter" | "mothership", "destroyed": false}, ...], "mothership": 40,
    "fighters": [{"attack": 5, "defence": 3}, ...]}, {"seat": 2, ...}]}`; defence 0 is a destroyed fighter.
    """
    return {
        "type": "round",
        "round": number,
        "sides": [
            {
                "seat": s + 1,
                "shots": shots[s],
                "mothership": max(0, mothership[s]),
                "fighters": [{"attack": a, "defence": d} for a, d in zip(attack[s], defence[s], strict=True)],
            }
            for s in (0, 1)
        ],
    }


# --- the fast exact shortcut ----------------------------------------------------------------------

#: A race prepared for fast battles: (mothership defence, ((shots, prefix sums, defence), ...)).
Prepared = tuple[int, tuple[tuple[tuple[int, ...], tuple[int, ...], int], ...]]


def shot_list(attack: int, pattern: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Every shot a fighter fires while alive, in order: the pattern repeated, capped by attack left (MD-2)."""
    shots = []
    left = attack
    n = len(pattern)
    k = 0
    while left > 0:
        shot = pattern[k % n]
        if shot > left:
            shot = left
        shots.append(shot)
        left -= shot
        k += 1
    return tuple(shots)


def prepare(orders: RaceOrders | dict[str, Any], config: MothershipConfig = DEFAULT_CONFIG) -> Prepared:
    """Precompute a race's shot lists once, for many fast battles."""
    race = _as_orders(orders, config)
    fighters = []
    for f in race.fighters:
        shots = shot_list(f.attack, f.pattern)
        fighters.append((shots, tuple(accumulate(shots)), f.defence))
    return race.mothership, tuple(fighters)


def fight(race_1: Prepared, race_2: Prepared) -> tuple[int, int, int]:
    """(rounds, damage taken by mothership 1, damage taken by mothership 2) of two prepared races.

    Damage is capped at each mothership's defence, so `damage >= defence` means destroyed.
    """
    m1, fighters_1 = race_1
    m2, fighters_2 = race_2
    hits_1: list[tuple[tuple[int, ...], int]] = []  # enemy shot lists reaching mothership 1, from a round index
    hits_2: list[tuple[tuple[int, ...], int]] = []
    total_1 = total_2 = 0
    end = 0
    for (s1, c1, d1), (s2, c2, d2) in zip(fighters_1, fighters_2, strict=True):
        n1 = len(s1)
        n2 = len(s2)
        # Round index in which each fighter is destroyed if its opponent kept firing: prefix sums grow.
        t1 = bisect_left(c2, d1)
        t2 = bisect_left(c1, d2)
        if t1 >= n2:
            t1 = _NEVER
        if t2 >= n1:
            t2 = _NEVER
        if t2 < t1:  # fighter 2 falls first; fighter 1 fires all its shots, the later ones at mothership 2
            fires = n1
            if n1 > t2 + 1:
                hits_2.append((s1, t2 + 1))
                total_2 += c1[-1] - c1[t2]
        elif t1 < t2:
            fires = n2
            if n2 > t1 + 1:
                hits_1.append((s2, t1 + 1))
                total_1 += c2[-1] - c2[t1]
        elif t1 == _NEVER:  # neither falls: they spend everything on each other
            fires = n1 if n1 > n2 else n2
        else:  # both fall in the same round
            fires = t1 + 1
        if fires > end:
            end = fires
    if total_1 < m1 and total_2 < m2:
        return end, total_1, total_2
    # A mothership may fall: find the first round it does (MD-7).
    per_round_1 = [0] * end
    per_round_2 = [0] * end
    for shots, first in hits_1:
        for r in range(first, len(shots)):
            per_round_1[r] += shots[r]
    for shots, first in hits_2:
        for r in range(first, len(shots)):
            per_round_2[r] += shots[r]
    taken_1 = taken_2 = 0
    for r in range(end):
        taken_1 += per_round_1[r]
        taken_2 += per_round_2[r]
        if taken_1 >= m1 or taken_2 >= m2:
            return r + 1, min(taken_1, m1), min(taken_2, m2)
    raise AssertionError("unreachable: total damage reached a mothership's defence")


def battle(
    orders_1: RaceOrders | dict[str, Any],
    orders_2: RaceOrders | dict[str, Any],
    config: MothershipConfig = DEFAULT_CONFIG,
) -> BattleResult:
    """The result of a battle between two races' orders (dicts are validated first; OrdersError if bad)."""
    p1 = prepare(orders_1, config)
    p2 = prepare(orders_2, config)
    rounds, taken_1, taken_2 = fight(p1, p2)
    start = (p1[0], p2[0])
    winner, outcome = decide(start, (taken_1, taken_2))
    return BattleResult(winner, outcome, rounds, (taken_1, taken_2), (start[0] - taken_1, start[1] - taken_2))
