"""Rewards (docs/rl.md): +1 / -1 / 0 at the end only, unless the shaped reward is asked for."""

from __future__ import annotations

import numpy as np

import armada.rl
from armada.rl.play import SHAPE


def _play(shaped: bool) -> tuple[list[dict[str, float]], dict]:
    env = armada.rl.parallel_env("galaxy", max_turns=12, shaped=shaped)
    _, infos = env.reset(seed=21)
    rng = np.random.default_rng(2)
    trace = []
    while env.agents:
        actions = {a: rng.integers(0, env.action_space(a).nvec) for a in env.agents}
        _, rewards, terminations, truncations, infos = env.step(actions)
        assert not any(truncations.values())
        trace.append(rewards)
    assert all(terminations.values())
    return trace, infos["seat_1"]["result"]


def test_by_default_the_only_reward_is_the_result_at_the_end() -> None:
    trace, result = _play(shaped=False)
    assert all(r == {"seat_1": 0.0, "seat_2": 0.0} for r in trace[:-1])
    winner = result["winner"]
    expected = {None: (0.0, 0.0), 1: (1.0, -1.0), 2: (-1.0, 1.0)}[winner]
    assert (trace[-1]["seat_1"], trace[-1]["seat_2"]) == expected


def test_the_shaped_reward_follows_the_planet_difference() -> None:
    trace, result = _play(shaped=True)
    assert any(r["seat_1"] != 0.0 for r in trace[:-1])
    planets = result["scores"]["planets"]
    terminal = {None: 0.0, 1: 1.0, 2: -1.0}[result["winner"]]
    total = sum(r["seat_1"] for r in trace)
    assert abs(total - (terminal + SHAPE * (planets["1"] - planets["2"]) / 16)) < 1e-9
    assert abs(sum(r["seat_1"] + r["seat_2"] for r in trace)) < 1e-9  # zero-sum


def test_mothership_shaped_reward_is_the_damage_margin() -> None:
    env = armada.rl.gym_env("mothership", opponent="builtin:greedy", shaped=True)
    env.reset(seed=1)
    _, reward, _, _, info = env.step(np.array([0] * 11 + [0] * 5))  # the cheapest orders: a sure loss
    taken = info["result"]["scores"]["damage_taken"]
    assert info["result"]["winner"] == 2
    assert abs(reward - (-1.0 + SHAPE * (taken["2"] - taken["1"]) / 50)) < 1e-9
