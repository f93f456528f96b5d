"""A tiny run of bench/ranking.py's simulation, so the benchmark keeps working."""

from __future__ import annotations

import copy
import itertools
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import ranking


def brute_tau(hidden: list[float], shown: list[float]) -> float:
    pairs = list(itertools.combinations(range(len(hidden)), 2))
    total = 0
    for i, j in pairs:
        h, s = hidden[i] - hidden[j], shown[i] - shown[j]
        total += (h * s > 0) - (h * s < 0)
    return total / len(pairs)


def test_kendall_tau_matches_the_definition() -> None:
    rng = random.Random(3)
    hidden = [rng.random() for _ in range(60)]
    shown = [round(h + rng.gauss(0, 0.3), 1) for h in hidden]  # rounding makes ties
    assert math.isclose(ranking.kendall_tau(hidden, shown), brute_tau(hidden, shown))
    assert ranking.kendall_tau(hidden, hidden) == 1.0
    assert ranking.kendall_tau(hidden, [-h for h in hidden]) == -1.0
    assert ranking.kendall_tau(hidden, [0.0] * 60) == 0.0


def test_outcomes_include_draws_at_a_modest_rate() -> None:
    rng = random.Random(1)
    results = [ranking.play(25, 25, rng) for _ in range(4000)]
    assert 0.04 < results.count(0) / 4000 < 0.12
    assert abs(results.count(1) - results.count(-1)) < 300
    assert sum(ranking.play(35, 20, rng) for _ in range(200)) > 150


def test_a_small_ladder_converges_and_places_a_new_version() -> None:
    n = 30
    for make in (lambda w: ranking.Armada(n, w.owners), lambda w: ranking.Halite(n, w.owners, random.Random(0))):
        world = ranking.World.make(n, seed=2)
        policy = make(world)
        games = ranking.ladder_games(world, policy, check_every=5, extra=5)
        assert games < ranking.MAX_GAMES_PER_BOT
        assert ranking.kendall_tau(world.skills, policy.scores()) > 0.8
        placed = ranking.placement_games(copy.deepcopy(world), copy.deepcopy(policy), 3, world.skills[3] + 2, True)
        assert 0 < placed < ranking.PLACEMENT_MAX_GAMES


def test_the_bench_prints_its_target_lines() -> None:
    lines: list[str] = []
    targets = ranking.run(seeds=1, n=24, newcomers=2, models=False, out=lines.append)
    assert any("placement games" in line for line in lines)
    assert [t.split(":")[0] for t in targets] == ["target ranking-games-ratio", "target placement-games-ratio"]
    assert all(t.endswith((" ok", " short")) for t in targets)


def test_the_batch_rating_finds_the_likelihoods_maximum() -> None:
    """`_batch_rating.fit` is the MAP of its model: moving any skill a little lowers the log posterior,
    and many games recover the hidden order."""
    from statistics import NormalDist

    import _batch_rating
    import numpy as np

    rng = random.Random(5)
    n = 12
    skills = [rng.gauss(25, 8) for _ in range(n)]
    games = []
    for _ in range(1500):
        a, b = rng.sample(range(n), 2)
        games.append((a, b, ranking.play(skills[a], skills[b], rng)))
    mu, sigma = _batch_rating.fit(n, games, ranking.DRAW_MARGIN)
    cdf, c, m = NormalDist().cdf, _batch_rating.NOISE, ranking.DRAW_MARGIN

    def log_posterior(x: list[float]) -> float:
        total = sum(-((v - 25.0) ** 2) / (2 * (25 / 3) ** 2) for v in x)
        for a, b, r in games:
            d = x[a] - x[b] if r >= 0 else x[b] - x[a]
            total += math.log(cdf((d - m) / c) if r else cdf((m - d) / c) - cdf((-m - d) / c))
        return total

    best = log_posterior(list(mu))
    for i in (0, 5, 11):
        for delta in (-0.05, 0.05):
            moved = list(mu)
            moved[i] += delta
            assert log_posterior(moved) < best
    assert ranking.kendall_tau(skills, list(mu)) > 0.8
    assert np.all(sigma > 0) and np.all(sigma < 25 / 3)


def test_the_batch_experiment_prints_both_policies() -> None:
    lines: list[str] = []
    ranking.batch_figure(seeds=1, n=24, out=lines.append)
    assert [line.split()[0] for line in lines[-2:]] == ["armada", "halite"]
    assert all("online" in line and "batch" in line for line in lines)
