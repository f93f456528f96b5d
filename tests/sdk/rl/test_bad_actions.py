"""Bad actions and options in the environments: a clear error and nothing played, or a forfeit as in a match.

An action of the wrong form (shape, type, range) is the trainer's bug: ValueError naming what
was expected, and the game goes on untouched. A reply that a match's referee would refuse
(JSON text that is not a JSON object) or that the game's rules refuse (GX-22, MD-12) loses by
forfeit, and the info says whose fault it was.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import armada.rl


def idle(request: dict[str, Any]) -> dict[str, Any]:
    return {"probes": []} if request["type"] == "scout" else {"fleets": []} if request["type"] == "command" else {}


@pytest.mark.parametrize(("action", "message"), [
    (np.zeros((2, 16), np.int64), r"shape \(16, 2\).*got ndarray of shape \(2, 16\)"),
    (np.zeros(16, np.int64), r"shape \(16, 2\).*got ndarray of shape \(16,\)"),
    (np.full((16, 2), 0.5), r"holds integers; got ndarray of shape \(16, 2\) and dtype float64"),
    (np.full((16, 2), 17), r"value at \(0, 0\) is 17, outside 0..16"),
    (np.array([[0, 0]] * 15 + [[0, -1]]), r"value at \(15, 1\) is -1, outside 0..3"),
    (np.full((16, 2), 2**64 - 1, np.uint64), rf"value at \(0, 0\) is {2**64 - 1}, outside 0..16"),  # not "-1"
    (None, r"got NoneType None"),
])
def test_a_galaxy_action_of_the_wrong_form_is_refused_and_the_game_goes_on(action: Any, message: str) -> None:
    env = armada.rl.gym_env("galaxy", opponent=idle, max_turns=5)
    env.reset(seed=4)
    before = env.session.state
    with pytest.raises(ValueError, match=message):
        env.step(action)
    assert env.session.state == before and not env.session.done  # nothing was played
    _, _, terminated, _, info = env.step(env.action_space.sample())
    assert not terminated and info["request"]["type"] == "command"


@pytest.mark.parametrize("length", [15, 17])
def test_a_mothership_action_of_another_length_is_refused(length: int) -> None:
    env = armada.rl.parallel_env("mothership")
    env.reset(seed=1)
    action = np.zeros(length, np.int64)
    with pytest.raises(ValueError, match=rf"shape \(16,\).*shape \({length},\)"):
        env.step({"seat_1": action, "seat_2": action})
    assert env.agents == ["seat_1", "seat_2"] and not env.session.done


def test_an_action_for_an_agent_that_is_not_playing_is_refused() -> None:
    env = armada.rl.parallel_env("mothership")
    env.reset(seed=1)
    good = env.action_space("seat_1").sample()
    with pytest.raises(ValueError, match="'seat_3', not an agent of this game"):
        env.step({"seat_1": good, "seat_2": good, "seat_3": good})
    assert not env.session.done


@pytest.mark.parametrize(("text", "detail"), [
    ("nope", "reply is not valid JSON"),
    ("[1, 2]", "reply is a JSON array, not an object"),
    (b"\xff{}", "reply is not valid UTF-8"),
])
def test_json_text_a_referee_would_refuse_forfeits_that_seat(text: str | bytes, detail: str) -> None:
    env = armada.rl.parallel_env("galaxy", max_turns=5)
    env.reset(seed=2)
    _, rewards, terminations, _, infos = env.step({"seat_1": env.action_space("seat_1").sample(), "seat_2": text})
    assert rewards == {"seat_1": 1.0, "seat_2": -1.0} and all(terminations.values())
    assert infos["seat_2"]["fault"]["status"] == "protocol" and detail in infos["seat_2"]["fault"]["detail"]
    assert "fault" not in infos["seat_1"] and infos["seat_1"]["result"]["outcome"] == "forfeit"
    assert env.agents == []


def test_the_learner_forfeits_for_json_text_the_referee_refuses() -> None:
    env = armada.rl.gym_env("galaxy", opponent=idle, max_turns=5)
    env.reset(seed=2)
    _, reward, terminated, _, info = env.step("{not json")
    assert (reward, terminated) == (-1.0, True)
    assert info["fault"]["status"] == "protocol" and "opponent_fault" not in info


@pytest.mark.parametrize("opponent_reply", [{"probes": "x"}, {"probes": {"planet": 1}}])  # GX-22: wrong shape
def test_an_opponent_whose_reply_breaks_the_rules_forfeits_and_the_info_says_why(opponent_reply: Any) -> None:
    def opponent(request: dict[str, Any]) -> dict[str, Any]:
        return dict(opponent_reply) if request["type"] == "scout" else idle(request)

    env = armada.rl.gym_env("galaxy", opponent=opponent, seat=1, max_turns=5)
    env.reset(seed=3)
    _, reward, terminated, _, info = env.step(env.action_space.sample())
    assert (reward, terminated) == (1.0, True) and info["result"]["outcome"] == "forfeit"
    assert info["opponent_fault"]["status"] == "protocol" and "scout reply" in info["opponent_fault"]["detail"]
    assert "fault" not in info


@pytest.mark.parametrize(("game", "options", "message"), [
    ("galaxy", {"shaped": "yes"}, "shaped must be True or False"),
    ("mothership", {"shaped": 1}, "shaped must be True or False"),
    ("mothership", {"max_fleets": 5}, "max_fleets is Galaxy's option"),
])
def test_options_of_the_wrong_kind_are_refused(game: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        armada.rl.parallel_env(game, **options)
    with pytest.raises(ValueError, match=message):
        armada.rl.gym_env(game, opponent="builtin:random", **options)


@pytest.mark.parametrize("actions", [None, [0, 1], "seat_1"])
def test_actions_that_are_not_a_dict_of_agents_are_refused(actions: Any) -> None:
    """Before: step(None) raised `TypeError: argument of type 'NoneType' is not iterable` from the
    environment's code, and a list said `missing seat_1` though it held two actions."""
    env = armada.rl.parallel_env("mothership")
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"step takes a dict of actions, one per agent \(seat_1, seat_2\); got "
                                         + type(actions).__name__):
        env.step(actions)
    assert not env.session.done


@pytest.mark.parametrize("max_fleets", [601, 10**9])
def test_a_max_fleets_no_game_can_fill_is_refused_before_any_memory_goes(max_fleets: int) -> None:
    """Before: max_fleets=10**9 (or sys.maxsize, meaning "all of them") built a 24 GB observation
    space, and the process was killed for lack of memory with no message. A seat has at most
    600 fleets in flight (100 orders a turn, GX-10, each at most 6 turns in flight, GX-6)."""
    for make in (armada.rl.parallel_env, armada.rl.gym_env):
        with pytest.raises(ValueError, match=rf"max_fleets must be from 1 to 600 .*got {max_fleets}"):
            make("galaxy", max_fleets=max_fleets)
    assert armada.rl.parallel_env("galaxy", max_fleets=600).observation_space("seat_1")["fleets"].shape == (600, 6)
