"""The documented encodings (docs/rl.md): what an observation holds (fog included) and what an action sends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import armada
from armada.games.mothership.config import parse_config
from armada.games.mothership.orders import parse_orders
from armada.rl.galaxy import FLEET_FEATURES, GAME_FEATURES, PLANET_FEATURES, GalaxyCodec
from armada.rl.mothership import MothershipCodec, share


def _col(name: str) -> int:
    return PLANET_FEATURES.index(name)


def _rows(**targets: tuple[int, int]) -> np.ndarray:
    """A Galaxy action: row of planet N (keyword pN) set to (target, bucket), every other row 0."""
    action = np.zeros((16, 2), dtype=np.int64)
    for key, value in targets.items():
        action[int(key[1:]) - 1] = value
    return action


def test_galaxy_observation_shows_own_planets_and_only_probed_foreign_ones() -> None:
    session = armada.Session("galaxy", seed=3)
    codec = GalaxyCodec(session.config)
    memory: dict[str, Any] = {}
    scout = session.requests()[1]
    obs = codec.encode(scout, memory)
    assert codec.observation_space.contains(obs)
    home, enemy = obs["planets"][0], obs["planets"][15]
    assert home[[_col("mine"), _col("known"), _col("battleships"), _col("cruisers"), _col("launchers")]].tolist() == \
        [1, 1, 5, 10, 10]
    assert enemy[_col("enemy")] == 1 and enemy[_col("known")] == 0 and enemy[_col("battleships")] == 0  # GX-19
    assert (enemy[_col("row")], enemy[_col("col")]) == (3, 3)
    game = dict(zip(GAME_FEATURES, obs["game"].tolist(), strict=True))
    assert game == {"scout": 1, "command": 0, "end": 0, "turn": 1, "max_turns": 200, "seat": 1, "probes": 1,
                    "my_planets": 1, "enemy_planets": 1}

    # planet 1's probe goes to 16; rows of planets not ours (5) and probes at our own planet are ignored
    reply = codec.decode(_rows(p1=(16, 0), p5=(7, 0)), scout, memory)
    assert reply == {"probes": [16]}
    assert codec.decode(_rows(p1=(1, 0)), scout, memory) == {"probes": []}
    session.step({1: reply, 2: {"probes": []}})
    command = session.requests()[1]
    obs = codec.encode(command, memory)
    enemy = obs["planets"][15]
    assert enemy[[_col("known"), _col("probed"), _col("battleships"), _col("cruisers")]].tolist() == [1, 1, 5, 10]
    assert obs["game"][GAME_FEATURES.index("command")] == 1


def test_galaxy_command_sends_a_share_of_each_ship_type_rounded_up() -> None:
    session = armada.Session("galaxy", seed=3)
    codec = GalaxyCodec(session.config)
    memory: dict[str, Any] = {}
    codec.encode(session.requests()[1], memory)
    session.step({1: {"probes": []}, 2: {"probes": []}})
    command = session.requests()[1]
    codec.encode(command, memory)
    assert codec.decode(_rows(p1=(6, 1)), command, memory) == {
        "fleets": [{"from": 1, "to": 6, "battleships": 3, "cruisers": 5}]}  # half of 5 and 10, rounded up
    assert codec.decode(_rows(p1=(6, 0)), command, memory)["fleets"][0]["battleships"] == 2
    assert codec.decode(_rows(p1=(0, 3)), command, memory) == {"fleets": []}  # target 0: stay
    assert codec.decode(_rows(p1=(1, 3)), command, memory) == {"fleets": []}  # to itself: stay
    session.step({1: codec.decode(_rows(p1=(6, 3)), command, memory), 2: {"fleets": []}})
    obs = codec.encode(session.requests()[1], memory)
    fleet = dict(zip(FLEET_FEATURES, obs["fleets"][0].tolist(), strict=True))
    assert fleet == {"present": 1, "from": 1, "to": 6, "battleships": 5, "cruisers": 10, "turns_left": 1}
    assert obs["fleets"][1:].sum() == 0  # padding


def test_every_galaxy_action_decodes_to_replies_the_engine_takes_without_a_warning() -> None:
    session = armada.Session("galaxy", seed=8, config={"max_turns": 15})
    codec = GalaxyCodec(session.config, max_fleets=4)
    memory: dict[int, dict[str, Any]] = {seat: {} for seat in (1, 2)}
    rng = np.random.default_rng(0)
    while not session.done:
        asked = session.requests()
        replies = {}
        for seat, request in asked.items():
            obs = codec.encode(request, memory[seat])
            assert codec.observation_space.contains(obs)
            assert request.get("warnings", []) == [] and request.get("observation", {}).get("warnings", []) == []
            replies[seat] = codec.decode(rng.integers(0, codec.action_space.nvec), request, memory[seat])
        session.step(replies)
    assert session.result is not None and session.result.outcome != "forfeit"


def test_every_mothership_action_decodes_to_valid_orders() -> None:
    rng = np.random.default_rng(1)
    for raw in ({}, {"total_points": 16}, {"total_points": 400, "fighter_attack": [2, 9]}):
        config = parse_config(raw)
        codec = MothershipCodec(armada.Session("mothership", config=raw).config)
        for _ in range(100):
            orders = parse_orders(codec.decode(rng.integers(0, codec.action_space.nvec), {}, {}), config)
            assert orders.points_used() <= config.total_points


def test_mothership_points_are_shared_by_weight() -> None:
    assert share([0] * 3, [1, 1, 1], [20, 20, 20], 30) == [1, 1, 1]  # no weight: minimums only
    assert share([1, 1, 2], [1, 1, 1], [20, 20, 20], 31) == [8, 8, 15]
    assert share([9, 1, 0], [1, 1, 1], [5, 50, 50], 60) == [5, 50, 1]  # the capped slot's points go round
    assert share([1] * 11, [1] * 11, [50] * 11, 100) == [10] + [9] * 10  # the last point to the first heaviest
    codec = MothershipCodec(armada.Session("mothership").config)
    orders = codec.decode([9] + [0] * 10 + [4, 0, 0, 0, 0], {}, {})
    assert orders["mothership"] == {"defence": 50}
    assert orders["fighters"][0] == {"attack": 1, "defence": 1, "pattern": [5]}
    obs = codec.encode(None, {"seat": 2})
    assert obs.tolist() == [2, 100, 100, 1, 50, 1, 20, 1, 20]


def test_codec_for_fills_the_defaults_and_refuses_a_bad_configuration() -> None:
    """An RL competitor's trial: `codec_for` (the call imitation.md names) wanted the full
    configuration: `{}` was a KeyError, None a TypeError, a negative `max_turns` was taken."""
    from armada.games.base import ConfigError
    from armada.rl import codec_for

    default = codec_for("galaxy")
    assert codec_for("galaxy", {}).observation_space.shape == default.observation_space.shape
    assert codec_for("mothership", {"total_points": 100}) is not None
    with pytest.raises(ConfigError, match="max_turns: must be between 1 and 10000, got -3"):
        codec_for("galaxy", {"max_turns": -3})
    with pytest.raises(ConfigError, match="must be an object"):
        codec_for("galaxy", 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        codec_for("chess", {})


@pytest.mark.parametrize("game", ["galaxy", "mothership"])
def test_each_games_encoding_works_as_a_copy_in_a_bot_without_gymnasium(game: str, tmp_path: Path) -> None:
    """An RL competitor's trial: a Mothership Down policy had no gymnasium-free encoding to put in
    its bot (the bot image has no gymnasium; only Galaxy's had one, through the imitation starter),
    so the points' sharing had to be written again by hand. Each game's encoding file, copied
    beside a bot's main.py, imports and decodes there with gymnasium blocked."""
    import shutil
    import subprocess
    import sys

    from armada.rl import galaxy_encoding, mothership_encoding

    source = {"galaxy": galaxy_encoding, "mothership": mothership_encoding}[game]
    shutil.copy(source.__file__, tmp_path / "encoding.py")
    script = ("import sys; sys.modules['gymnasium'] = None; sys.path.insert(0, sys.argv[1]); import encoding; "
              "print(sorted(n for n in ('encode', 'decode', 'share', 'flat', 'action_of') if hasattr(encoding, n)))")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "'decode'" in done.stdout and "'encode'" in done.stdout


def test_the_mothership_codec_decodes_as_its_encoding_file() -> None:
    from armada.rl import codec_for, mothership_encoding

    codec = codec_for("mothership")
    rng = np.random.default_rng(5)
    for _ in range(50):
        action = rng.integers(0, codec.action_space.nvec)
        assert codec.decode(action, {}, {}) == mothership_encoding.decode(action, codec.config)
        parse_orders(mothership_encoding.decode(action, codec.config), parse_config(codec.config))  # valid
    assert codec.encode(None, {"seat": 2}).tolist() == mothership_encoding.encode(codec.config, 2).tolist()
