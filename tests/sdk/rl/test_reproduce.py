"""Seeding reproduces games exactly; `reset(seed=S)` plays the game `armada play --seed S` plays."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import armada
import armada.rl


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b))


def _run_parallel(seed: int, action_seed: int) -> list[Any]:
    env = armada.rl.parallel_env("galaxy", max_turns=8, shaped=True)
    observations, infos = env.reset(seed=seed)
    trace: list[Any] = [observations, infos]
    rng = np.random.default_rng(action_seed)
    while env.agents:
        actions = {a: rng.integers(0, env.action_space(a).nvec) for a in env.agents}
        trace.append(env.step(actions))
    trace.append(env.session.replay())
    return trace


def test_two_parallel_envs_with_one_seed_and_the_same_actions_are_identical() -> None:
    first, second = _run_parallel(11, 5), _run_parallel(11, 5)
    assert len(first) == len(second) == 2 + 16 + 1
    for a, b in zip(first, second, strict=True):
        assert _same(a, b) if not isinstance(a, tuple) else all(_same(x, y) for x, y in zip(a, b, strict=True))
    other = _run_parallel(12, 5)
    assert not _same(first[0], other[0]) or first[-1] != other[-1]  # another seed, another game


def _run_gym(seed: int) -> list[Any]:
    env = armada.rl.gym_env("galaxy", opponent="builtin:random", seat=1, max_turns=6)
    env.action_space.seed(3)
    trace: list[Any] = [env.reset(seed=seed)]
    done = False
    while not done:
        step = env.step(env.action_space.sample())
        trace.append(step)
        done = step[2]
    trace.append(env.session.replay())
    env.close()
    return trace


def test_two_gym_envs_with_one_seed_and_the_same_actions_are_identical() -> None:
    first, second = _run_gym(4), _run_gym(4)
    assert len(first) == 1 + 12 + 1
    for a, b in zip(first, second, strict=True):
        assert all(_same(x, y) for x, y in zip(a, b, strict=True)) if isinstance(a, tuple) else a == b


def test_reset_seed_is_the_game_seed_and_no_seed_draws_reproducibly() -> None:
    env = armada.rl.parallel_env("galaxy", max_turns=3)
    _, infos = env.reset(seed=7)
    assert env.session.replay()["seed"] == 7
    request = infos["seat_1"]["request"]
    assert request == armada.Session("galaxy", seed=7, config={"max_turns": 3}).requests()[1]

    def seeds_drawn() -> list[int]:
        seeds = []
        for _ in range(2):
            env.reset()
            seeds.append(env.session.replay()["seed"])
        return seeds

    drawn = seeds_drawn()  # after reset(seed=7), the next games' seeds follow from 7
    env.reset(seed=7)
    assert seeds_drawn() == drawn and drawn[0] != drawn[1]


@pytest.mark.parametrize("seed", [-1, 5.5, "7", True])
def test_a_bad_seed_is_refused_at_the_reset_that_gets_it(seed: object) -> None:
    """Before: -1, 5.5 (silently seed 5) and "7" played a game, and the next reset without a seed
    failed inside numpy, far from the cause (gym_env refuses them through Gymnasium's own check)."""
    env = armada.rl.parallel_env("galaxy")
    with pytest.raises(ValueError, match=rf"seed must be a non-negative integer or None, got {re.escape(repr(seed))}"):
        env.reset(seed=seed)  # type: ignore[arg-type]
    env.reset(seed=np.int64(4))  # numpy's integers are integers
    assert env.session.replay()["seed"] == 4
    env.reset()


@pytest.mark.parametrize("make", [lambda: armada.rl.parallel_env("galaxy"), lambda: armada.rl.gym_env("galaxy")])
@pytest.mark.parametrize("seed", [2**63, 2**70])
def test_a_seed_armada_play_would_refuse_is_refused(make: Any, seed: int) -> None:
    """Before: reset(seed=2**70) played and recorded a game `armada play --seed` cannot replay
    (it takes 0..2**63-1), although the seed promises the game `armada play --seed S` plays."""
    env = make()
    with pytest.raises(ValueError, match=rf"seed must be at most {2**63 - 1}.*got {seed}"):
        env.reset(seed=seed)
    env.reset(seed=2**63 - 1)
    assert env.session.replay()["seed"] == 2**63 - 1


def test_gym_env_refuses_a_bool_seed_as_parallel_env_does() -> None:
    """Before: gym_env's reset(seed=True) played seed 1 (Gymnasium takes a bool for an int)."""
    env = armada.rl.gym_env("galaxy")
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got True"):
        env.reset(seed=True)
