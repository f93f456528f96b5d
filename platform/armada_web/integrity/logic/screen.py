"""Thrown games at scale, the pure part: which ordered pairs could be flagged at all, decided from
per-pair sums the database adds up (`integrity.collusion.pair_sums`), so only those few pairs'
games are read and tested exactly (`collusion.pair_tests`). Nothing that the exact test would flag
is left out: each pair skipped is skipped by a bound its p-value provably cannot beat.

For an ordered pair (loser L, winner W) with n decisive games, L's chance of losing each, and
L's losses x, the exact p-value is P(X >= x) for X the Poisson-binomial sum of those chances.
Given the threshold alpha / K (Tarone's K, from every pair's floor):
- **the floor**: p >= the chance of losing every game (the product of the chances), so a pair
  whose floor is above the threshold is never flagged (Tarone's own argument);
- **the median**: the median of a Poisson-binomial sum is floor(mu) or ceil(mu) (Jogdeo and
  Samuels, 1968), so x <= mu (the losses the ratings predicted) gives p >= 1/2;
- **the smallest chance**: X is at least a binomial of n games at the smallest of the chances
  (each game coupled with a coin that loses no more often), so p >= P(Bin(n, c_min) >= x).

The sums may come from a normal CDF approximated in SQL (relative error below 1.2e-7 per
chance) where a seat did not keep its expected result; every bound is loosened by `SLACK` (per
game, where errors add up) for it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from armada_web.integrity.logic.collusion import tarone

#: The relative slack given to every bound (the SQL side's approximation is 1.2e-7 per chance).
SLACK = 1e-5


@dataclass(frozen=True)
class Side:
    """One direction of a pair: `loser` against `winner`, from the database's sums."""

    loser: str
    winner: str
    games: int  # decisive games between them
    losses: int  # those `loser` lost
    expected: float  # the sum of its chances of losing them
    least: float  # the smallest of those chances
    log_floor: float  # the sum of their logarithms: the log of the chance of losing all

    @property
    def floor(self) -> float:
        return math.exp(self.log_floor)


@dataclass(frozen=True)
class Screen:
    """The whole family's size, Tarone's K and the directions that could be flagged."""

    tested: int
    counted: int
    candidates: tuple[tuple[str, str], ...]  # (loser, winner)


def binomial_tail(games: int, chance: float, at_least: int) -> float:
    """P(Bin(games, chance) >= at_least)."""
    if at_least <= 0:
        return 1.0
    if at_least > games or chance <= 0.0:
        return 0.0
    if chance >= 1.0:
        return 1.0
    log_c, log_not = math.log(chance), math.log1p(-chance)
    top = math.lgamma(games + 1)
    return min(1.0, sum(math.exp(top - math.lgamma(k + 1) - math.lgamma(games - k + 1) + k * log_c
                                 + (games - k) * log_not) for k in range(at_least, games + 1)))


def could_flag(side: Side, threshold: float) -> bool:
    """False when `side`'s p-value is provably above `threshold` (see the module)."""
    if threshold <= 0:
        return False
    if side.log_floor > math.log(threshold) + SLACK * (1 + side.games):
        return False
    if threshold < 0.5 and side.losses <= side.expected - SLACK * (1 + side.games):
        return False
    return binomial_tail(side.games, side.least * (1 - SLACK), side.losses) <= threshold * (1 + SLACK)


def screen(sides: Iterable[Side], *, alpha: float) -> Screen:
    """Tarone's K over every side (each a test) and the sides that could reach alpha / K."""
    every = list(sides)
    counted = tarone((s.floor for s in every), alpha)
    if not counted:
        return Screen(0, 0, ())
    threshold = alpha / counted
    return Screen(len(every), counted, tuple(sorted((s.loser, s.winner) for s in every if could_flag(s, threshold))))
