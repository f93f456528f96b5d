"""The screen of thrown games at scale (integrity.logic.screen): its bounds never drop a pair the
exact test would flag, and they do drop the honest ones."""

from __future__ import annotations

import math
import random

from armada_web.integrity.logic.collusion import tail
from armada_web.integrity.logic.screen import Side, binomial_tail, could_flag, screen


def side(chances: list[float], losses: int) -> Side:
    return Side("1", "2", len(chances), losses, sum(chances), min(chances), sum(math.log(c) for c in chances))


def test_the_binomial_tail_is_exact():
    assert binomial_tail(4, 0.5, 4) == 1 / 16
    assert math.isclose(binomial_tail(10, 0.3, 3), tail([0.3] * 10, 3), rel_tol=1e-12)
    assert binomial_tail(5, 0.0, 1) == 0.0 and binomial_tail(5, 0.2, 0) == 1.0 and binomial_tail(3, 0.5, 4) == 0.0


def test_no_pair_the_exact_test_flags_is_screened_out():
    rng = random.Random(28)
    for _ in range(800):
        n = rng.randint(1, 30)
        centre = rng.random()
        chances = [min(0.999, max(0.001, rng.gauss(centre, rng.choice((0.01, 0.1, 0.3))))) for _ in range(n)]
        losses = sum(rng.random() < c for c in chances) if rng.random() < 0.5 else rng.randint(0, n)
        p = tail(chances, losses)
        for threshold in (0.01, 1e-3, 1e-5):
            assert could_flag(side(chances, losses), threshold) or p > threshold, (chances, losses, threshold)


def test_honest_pairs_of_neighbours_are_screened_out():
    rng = random.Random(29)
    kept = 0
    for _ in range(1000):
        centre = rng.uniform(0.25, 0.75)
        chances = [min(0.99, max(0.01, rng.gauss(centre, 0.05))) for _ in range(rng.randint(3, 60))]
        kept += could_flag(side(chances, sum(rng.random() < c for c in chances)), 1e-5)
    assert kept < 20  # of 1,000: only these few pairs' games are read


def test_the_screen_counts_tarone_k_and_keeps_only_a_thrower():
    honest = [side([0.5] * 6, 3), side([0.5] * 6, 3), side([0.4] * 3, 1), side([0.6] * 3, 2)]
    thrower = Side("7", "8", 12, 12, 12 * 0.2, 0.2, 12 * math.log(0.2))
    found = screen([*honest, thrower], alpha=0.01)
    assert found.tested == 5 and found.counted == 1  # only the 12-game pair can reach 0.01 at all
    assert found.candidates == (("7", "8"),)
