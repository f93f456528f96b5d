"""Both environments pass their library's own checks, for both games, with no warning from them."""

from __future__ import annotations

import gc
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import FlattenObservation

import armada.rl
from armada.rl import galaxy_encoding

with warnings.catch_warnings():  # pettingzoo.test imports a deprecated classic game of its own
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import parallel_api_test

#: Short games keep the checks fast: ten Galaxy turns are twenty steps.
SHORT: dict[str, dict[str, Any]] = {"galaxy": {"max_turns": 10}, "mothership": {}}


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
def test_parallel_env_passes_pettingzoo_parallel_api_test(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = armada.rl.parallel_env(game, **SHORT[game])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports most problems as warnings
        parallel_api_test(env, num_cycles=25)  # more cycles than a game has steps: games end inside
    assert "Passed Parallel API test" in capsys.readouterr().out
    assert env.agents == []  # the last game ended, both agents left


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
@pytest.mark.parametrize("opponent", ["builtin:greedy", "builtin:random"])
def test_gym_env_passes_gymnasium_check_env(game: str, opponent: str) -> None:
    env = armada.rl.gym_env(game, opponent=opponent, seat=2, **SHORT[game])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium's checker reports through warnings too
        check_env(env, skip_render_check=True)  # no render modes: the replay is the way to look (env.session)
    env.close()


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
def test_gymnasium_make_and_make_vec_know_the_games(game: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make(armada.rl.GYM_IDS[game], opponent="builtin:random", **SHORT[game])
        assert isinstance(env.unwrapped, armada.rl.ArmadaEnv) and env.unwrapped.game == game
        env.reset(seed=1)
        env.step(env.action_space.sample())
        env.close()
        vector = gymnasium.make_vec(armada.rl.GYM_IDS[game], num_envs=2, vectorization_mode="sync", **SHORT[game])
        observations, _ = vector.reset(seed=1)
        assert vector.observation_space.contains(observations)
        vector.close()


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
def test_gymnasiums_flattening_is_the_encodings_flat_vector(game: str) -> None:
    """A policy trained on FlattenObservation's vector (or SB3's MultiInputPolicy) gets its inputs in
    the order a bot's `encoding.flat` gives them. Before: the Dict space sorted its keys (fleets,
    game, planets) while observations and `flat` go planets, fleets, game."""
    env = armada.rl.gym_env(game, opponent="builtin:greedy", **SHORT[game])
    wrapped: Any = FlattenObservation(armada.rl.gym_env(game, opponent="builtin:greedy", **SHORT[game]))
    flat: Callable[[Any], np.ndarray] = galaxy_encoding.flat if game == "galaxy" else np.asarray
    observation, vector = env.reset(seed=1)[0], wrapped.reset(seed=1)[0]
    for _ in range(4):  # Galaxy: scout and command steps, fleets in flight, intel
        assert np.array_equal(vector, flat(observation))
        assert np.array_equal(gymnasium.spaces.flatten(env.observation_space, observation), vector)
        action = env.action_space.sample()
        observation, _, done, _, _ = env.step(action)
        vector = wrapped.step(action)[0]
        if done:
            break
    assert np.array_equal(vector, flat(observation))
    if game == "galaxy":
        assert list(env.observation_space.keys()) == list(observation) == ["planets", "fleets", "game"]


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
def test_render_mode_none_is_taken_and_any_other_is_refused(game: str) -> None:
    """Some libraries always pass render_mode; before, None raised "render_mode: unknown galaxy setting"."""
    for env in (gymnasium.make(armada.rl.GYM_IDS[game], render_mode=None).unwrapped,
                armada.rl.gym_env(game, render_mode=None), armada.rl.parallel_env(game, render_mode=None)):
        assert env.render_mode is None and env.metadata["render_modes"] == []
    message = r"render_mode must be None: the environments have no render modes, got 'human'; .*armada replay"
    for make in (armada.rl.gym_env, armada.rl.parallel_env):
        with pytest.raises(ValueError, match=message):
            make(game, render_mode="human")


def test_parallel_envs_spaces_are_its_own_and_do_not_keep_it_alive() -> None:
    """Each agent's space is one object per environment; an environment let go is freed (a sweep
    making thousands of them does not grow), and an unknown agent is named."""
    env = armada.rl.parallel_env("galaxy", **SHORT["galaxy"])
    env.reset(seed=1)
    assert env.action_space("seat_1") is env.action_space("seat_1")
    assert env.action_space("seat_1") is not env.action_space("seat_2")
    assert env.action_space("seat_1") is not armada.rl.parallel_env("galaxy").action_space("seat_1")
    with pytest.raises(ValueError, match=r"'seat_3' is not an agent of this game \(agents: seat_1, seat_2\)"):
        env.observation_space("seat_3")
    env.observation_space("seat_2")
    freed = weakref.ref(env)
    del env
    gc.collect()
    assert freed() is None
