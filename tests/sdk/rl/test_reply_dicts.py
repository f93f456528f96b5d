"""A reply dict given as an action is read as the same reply sent by a bot as JSON text.

Before: numpy numbers in a dict (normal in policy code) were dropped by Galaxy ("not a planet
id") or forfeited Mothership Down; a tuple forfeited ("must be a list"); NaN was played and
`session.replay()` then raised, though the same reply as text forfeits.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import armada.rl

IDLE: dict[str, Any] = {"probes": []}


def played(reply: Any) -> tuple[Any, ...]:
    """A Galaxy step with `reply` as seat 1's action: rewards, terminations, infos and the replay."""
    env = armada.rl.parallel_env("galaxy", max_turns=5)
    env.reset(seed=1)  # seat 1 holds planet 1; planet 3 is neutral
    _, rewards, terminations, _, infos = env.step({"seat_1": reply, "seat_2": IDLE})
    return rewards, terminations, infos, env.session.replay()


@pytest.mark.parametrize(("reply", "text"), [
    ({"probes": [np.int64(3)]}, '{"probes": [3]}'),
    ({"probes": [np.uint8(3)]}, '{"probes": [3]}'),
    ({"probes": np.array([3], np.int32)}, '{"probes": [3]}'),
    ({"probes": (3,)}, '{"probes": [3]}'),
    ({"probes": [np.float32(3.5)]}, '{"probes": [3.5]}'),
    ({"probes": [np.bool_(True)]}, '{"probes": [true]}'),
    ({"probes": [float("nan")]}, '{"probes": [NaN]}'),
    ({"probes": [np.float64("-inf")]}, '{"probes": [-Infinity]}'),
    ({"probes": [2**70]}, '{"probes": [1180591620717411303424]}'),
    ({"probes": [3], "debug": {"shapes": [], "x": float("nan")}}, '{"probes": [3], "debug": {"shapes": [], "x": NaN}}'),
    ({"probes": ["\udc80"]}, '{"probes": ["\\udc80"]}'),
])
def test_a_reply_dict_plays_as_its_json_text(reply: dict[str, Any], text: str) -> None:
    assert played(reply) == played(text)


def test_numpy_numbers_in_a_reply_dict_are_the_numbers_they_hold() -> None:
    _, terminations, infos, _ = played({"probes": [np.int64(3)]})
    assert not any(terminations.values()) and [i["planet"] for i in infos["seat_1"]["request"]["intel"]] == [3]
    _, terminations, infos, _ = played({"probes": [float("nan")]})  # a forfeit, as the text: no replay error
    assert all(terminations.values()) and infos["seat_1"]["fault"] == {
        "status": "protocol", "detail": "reply is not acceptable JSON (NaN is not allowed in a reply)"}


def test_mothership_orders_of_numpy_numbers_are_played() -> None:
    plain = {"mothership": {"defence": 40}, "fighters": [{"attack": 7, "defence": 5, "pattern": [2, 2, 3]}] * 5}
    numpy = {"mothership": {"defence": np.int64(40)},
             "fighters": [{"attack": np.int32(7), "defence": np.int64(5), "pattern": np.array([2, 2, 3])}] * 5}
    outcomes = []
    for orders in (plain, numpy):
        env = armada.rl.parallel_env("mothership")
        env.reset(seed=1)
        _, rewards, _, _, infos = env.step({"seat_1": orders, "seat_2": plain})
        assert "fault" not in infos["seat_1"], infos
        outcomes.append((rewards, infos, json.dumps(env.session.replay())))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize(("reply", "why"), [
    ({"probes": {3}}, "Object of type set is not JSON serializable"),
    ({"probes": [b"3"]}, "Object of type bytes is not JSON serializable"),
    ({(1, 2): []}, "keys must be str, int, float, bool or None, not tuple"),
])
def test_a_reply_dict_json_cannot_hold_is_refused_and_nothing_is_played(reply: dict[Any, Any], why: str) -> None:
    env = armada.rl.parallel_env("galaxy", max_turns=5)
    env.reset(seed=1)
    before = env.session.state
    with pytest.raises(ValueError, match=rf"a reply given as a dict must hold JSON data .*: {why}"):
        env.step({"seat_1": reply, "seat_2": IDLE})
    assert env.session.state == before and not env.session.done
