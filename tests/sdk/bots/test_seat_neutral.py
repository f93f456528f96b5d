"""Starter bots are seat-neutral: in mirror matches neither seat wins significantly more (binomial test).

The engine is fair (GX-4 point symmetry); a bot that breaks ties by planet id is not (seat 2's
home is planet 16), so the starters break ties by relative id (`Observation.relative`).
"""

from __future__ import annotations

import math

import pytest

import armada
from tests.sdk.bots.starters import starter_class

SEEDS = range(1, 21)


def binomial_p(k: int, n: int) -> float:
    """Two-sided exact binomial test of k successes in n trials against p = 1/2."""
    if n == 0:
        return 1.0
    probs = [math.comb(n, i) / 2**n for i in range(n + 1)]
    return min(1.0, sum(p for p in probs if p <= probs[k] * (1 + 1e-9)))


def test_binomial_p_values() -> None:
    assert binomial_p(20, 20) < 1e-5  # what greedy's seat 2 did before the fix
    assert binomial_p(18, 20) < 0.001  # prober's seat 1
    assert binomial_p(10, 20) == 1.0
    assert binomial_p(0, 0) == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["greedy", "prober", "random"])
def test_mirror_matches_favour_neither_seat(name: str) -> None:
    bot = starter_class("galaxy", name)
    wins = {1: 0, 2: 0, None: 0}
    for seed in SEEDS:
        outcome = armada.run("galaxy", [bot, bot], seed=seed)
        assert [p.status for p in outcome.players] == ["ok", "ok"]
        wins[outcome.winner] += 1
    decided = wins[1] + wins[2]
    assert binomial_p(wins[1], decided) >= 0.01, wins
