"""`gym_env`'s opponent: a builtin, a bot folder (a process), a callable or a bot class; replies as actions."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import armada.rl
from armada.botspec import BotSpecError, starter_file
from armada.starters.mothership.greedy import Bot as GreedyBot

ORDERS = {"mothership": {"defence": 40},
          "fighters": [{"attack": 7, "defence": 5, "pattern": [2, 2, 3]}] * 5}  # MD-9's Ziltoidians


def test_a_callable_opponent_gets_the_protocols_messages_and_plays() -> None:
    seen: list[dict[str, Any]] = []

    def opponent(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"name": "Ziltoidians"} if request["type"] == "init" else dict(ORDERS)

    env = armada.rl.gym_env("mothership", opponent=opponent, seat=1)
    obs, info = env.reset(seed=2)
    assert info["request"]["type"] == "orders" and obs[0] == 1  # the learner's seat
    assert [(m["type"], m["seat"]) for m in seen if m["type"] == "init"] == [("init", 2)]
    _, reward, terminated, truncated, info = env.step(ORDERS)  # a reply object is an action too
    assert [m["type"] for m in seen] == ["init", "orders"]
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["result"]["outcome"] == "draw" and info["result"]["turns"] == 3  # MD-9
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(ORDERS)


def test_a_bot_folder_plays_as_a_process_and_as_the_same_builtin_in_process(tmp_path: Path) -> None:
    folder = tmp_path / "mybot"
    folder.mkdir()
    shutil.copyfile(starter_file("greedy", "mothership"), folder / "main.py")
    results = []
    for opponent in (str(folder), "builtin:greedy", GreedyBot, GreedyBot()):
        env = armada.rl.gym_env("mothership", opponent=opponent, seat=2)
        env.reset(seed=5)
        _, reward, terminated, _, info = env.step(np.array([3] * 11 + [2] * 5))
        assert terminated and "opponent_fault" not in info, info
        results.append((reward, info["result"]))
        env.close()
    assert results[0] == results[1] == results[2] == results[3]


def test_an_opponent_that_crashes_forfeits_and_the_learner_wins() -> None:
    def broken(request: dict[str, Any]) -> dict[str, Any]:
        if request["type"] == "scout" and request["turn"] == 2:
            raise RuntimeError("boom")
        return {}

    env = armada.rl.gym_env("galaxy", opponent=broken, max_turns=5)
    env.reset(seed=1)
    steps = [env.step(np.zeros((16, 2), dtype=np.int64)) for _ in range(3)]
    assert [s[2] for s in steps] == [False, False, True] and [s[1] for s in steps] == [0.0, 0.0, 1.0]
    info = steps[-1][4]
    assert info["opponent_fault"]["status"] == "crashed" and info["result"]["outcome"] == "forfeit"
    assert "RuntimeError: boom" in env.opponent.log()


def test_a_learner_reply_of_the_wrong_shape_forfeits_as_in_a_match() -> None:
    env = armada.rl.gym_env("mothership", opponent="builtin:random")
    env.reset(seed=1)
    _, reward, terminated, _, info = env.step('{"mothership": {"defence": 0}}')  # JSON text is a reply too
    assert (reward, terminated) == (-1.0, True)
    assert info["fault"]["status"] == "invalid" and info["result"]["winner"] == 2  # MD-12


def test_a_spec_that_names_no_bot_is_refused_when_the_env_is_made(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="no starter bot 'nope' for galaxy; available: builtin:greedy"):
        armada.rl.gym_env("galaxy", opponent="builtin:nope")
    with pytest.raises(BotSpecError, match="no such file or folder"):
        armada.rl.gym_env("galaxy", opponent=str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="seat must be one of"):
        armada.rl.gym_env("galaxy", seat=3)
    with pytest.raises(ValueError, match=r"seat must be one of .*got True"):  # True == 1, not a seat
        armada.rl.gym_env("galaxy", seat=True)
    with pytest.raises(ValueError, match=r"seat must be one of .*got 1.0"):  # 1.0 == 1 too (a trial: accepted)
        armada.rl.gym_env("galaxy", seat=1.0)  # type: ignore[arg-type]
    import numpy as np

    assert armada.rl.gym_env("galaxy", seat=np.int64(2)).seat == 2  # a seat drawn by numpy (a review)
    with pytest.raises(ValueError, match="unknown game 5: give a game's name"):  # not an AttributeError
        armada.rl.parallel_env(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_turns"):
        armada.rl.parallel_env("galaxy", max_turns=0)


def test_an_opponent_that_fails_at_init_loses_at_the_first_step() -> None:
    """Before: reset returned a game already over, the +1 was never paid and the next step raised
    "the game is over", which stopped gymnasium.make_vec and SB3 training."""
    def broken(request: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("no init for me")

    env = armada.rl.gym_env("galaxy", opponent=broken, max_turns=5)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert info["opponent_fault"]["status"] == "crashed" and info["result"]["winner"] == 1
    with pytest.raises(ValueError, match="shape"):  # an action of the wrong form is still refused
        env.step(np.zeros(3, dtype=np.int64))
    obs, reward, terminated, truncated, step_info = env.step(np.zeros((16, 2), dtype=np.int64))
    assert (reward, terminated, truncated) == (1.0, True, False) and env.observation_space.contains(obs)
    assert step_info == info and step_info["request"] is None
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros((16, 2), dtype=np.int64))
    env.reset(seed=1)
    assert env.step('{"any": "reply"}')[1:3] == (1.0, True)  # a reply object as well


def test_a_bot_folder_that_crashes_at_import_does_not_stop_make_vec(tmp_path: Path) -> None:
    folder = tmp_path / "crashbot"
    folder.mkdir()
    (folder / "main.py").write_text("raise RuntimeError('crash at import')\n")
    vector = gymnasium.make_vec("armada/Galaxy-v0", num_envs=2, vectorization_mode="sync", opponent=str(folder),
                                max_turns=5)
    vector.reset(seed=0)
    _, rewards, terminated, _, infos = vector.step(vector.action_space.sample())
    assert rewards.tolist() == [1.0, 1.0] and terminated.all()
    assert infos["opponent_fault"]["reason"].tolist() == ["RuntimeError: crash at import"] * 2
    vector.step(vector.action_space.sample())  # the autoreset: a new game, lost again at its first step
    _, rewards, terminated, _, _ = vector.step(vector.action_space.sample())
    assert rewards.tolist() == [1.0, 1.0] and terminated.all()
    vector.close()


def test_a_replay_names_the_learner_and_its_opponent() -> None:
    """`env.session.replay()` says who played: the learner and the opponent's spec or Python name
    (not "seat 1" and "seat 2"); PettingZoo's agents by their names."""
    def ziltoid(request: dict[str, Any]) -> dict[str, Any]:
        return {} if request["type"] == "init" else dict(ORDERS)

    def learner(request: dict[str, Any]) -> dict[str, Any]:  # named as the learning seat is
        return {} if request["type"] == "init" else dict(ORDERS)

    for opponent, name in ((ziltoid, "ziltoid"), (GreedyBot, "Bot"), ("builtin:greedy", "builtin:greedy"),
                           (learner, "learner (opponent)")):
        env = armada.rl.gym_env("mothership", opponent=opponent, seat=2)
        env.reset(seed=1)
        env.step(ORDERS)
        assert [s["name"] for s in env.session.replay()["seats"]] == [name, "learner"]
    parallel = armada.rl.parallel_env("mothership")
    parallel.reset(seed=1)
    parallel.step({"seat_1": ORDERS, "seat_2": ORDERS})
    assert [s["name"] for s in parallel.session.replay()["seats"]] == ["seat_1", "seat_2"]
    assert parallel.session.replay({1: "a", 2: "b"})["seats"][0]["name"] == "a"  # names given win


def test_an_opponent_that_crashes_says_why_in_its_fault(tmp_path: Path) -> None:
    """`info["opponent_fault"]["reason"]` is the last line of the opponent's traceback, as
    `armada play` shows it: "exited with code 1" alone does not say why, and the log is not in the info."""
    class Idle:  # a callable class, not a bot-library one: calling the class with a request fails
        def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
            return {}

    folder = tmp_path / "needs_pandas"
    folder.mkdir()
    (folder / "main.py").write_text("import not_a_module_anywhere\n")
    for opponent, reason in ((Idle, "TypeError: Idle() takes no arguments"),
                             (str(folder), "ModuleNotFoundError: No module named 'not_a_module_anywhere'")):
        env = armada.rl.gym_env("galaxy", opponent=opponent, max_turns=5)
        _, info = env.reset(seed=1)
        assert info["opponent_fault"]["status"] == "crashed", info
        assert info["opponent_fault"]["reason"] == reason, info
        # in process, no process exited: the exception's class, not "exited with code 1" (a trial)
        assert info["opponent_fault"]["detail"].startswith(
            "raised TypeError; " if opponent is Idle else "exited with code 1; "), info
        env.close()
    # a bot of the other game stops on purpose, without a traceback: the bot library's line says why
    # (a trial: a Galaxy folder as a Mothership opponent gave "exited with code 2" alone)
    env = armada.rl.gym_env("mothership", opponent=str(starter_file("greedy", "galaxy")))
    _, info = env.reset(seed=1)
    assert info["opponent_fault"]["status"] == "crashed", info
    assert info["opponent_fault"]["reason"].startswith("[armada] this is a galaxy bot; run with --game galaxy"), info
    env.close()
    # the same in process (a class or an instance of the bot library): its SystemExit is no traceback
    for in_process in (GreedyBot, GreedyBot()):
        env = armada.rl.gym_env("galaxy", opponent=in_process, max_turns=5)
        _, info = env.reset(seed=1)
        assert info["opponent_fault"]["reason"] == ("[armada] this is a mothership bot; run with --game mothership "
                                                    "(this match is galaxy)"), info
        env.close()


def _shared(one: Any, two: Any) -> bool:
    """Whether two infos hold one mutable object (Gymnasium 1.4's checker warns of it: a trainer keeps them)."""
    if isinstance(one, dict | list) and one is two:
        return True
    if isinstance(one, dict) and isinstance(two, dict):
        return any(_shared(one[k], two[k]) for k in one.keys() & two.keys())
    if isinstance(one, list) and isinstance(two, list):
        return any(_shared(a, b) for a, b in zip(one, two, strict=False))
    return False


def test_the_infos_of_a_reset_and_its_step_share_no_object(tmp_path: Path) -> None:
    """An opponent lost at `init`: the reset's info and the next step's held the same request and the
    same `result["scores"]` (a trainer keeping both saw one change the other)."""
    folder = tmp_path / "crashbot"
    folder.mkdir()
    (folder / "main.py").write_text("raise RuntimeError('crash at import')\n")
    for game in ("galaxy", "mothership"):
        env = armada.rl.gym_env(game, opponent=str(folder))
        _, first = env.reset(seed=0)
        _, _, terminated, _, then = env.step(env.action_space.sample())
        assert terminated and first["request"] is None and then["result"] == first["result"]
        assert not _shared(first, then)
        env.close()
