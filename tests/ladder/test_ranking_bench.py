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
