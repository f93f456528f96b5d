"""armada.run and armada.Session: the same engines and referee rules as `armada play`."""

from __future__ import annotations

import json

import pytest

import armada
from armada.cli.main import main
from armada.narration import replay_events, select
from armada.replay import game_content, rebuild_states
from tests.sdk.bots.starters import starter_class
from tests.sdk.cli.bots import without_time


def test_run_gives_the_same_match_as_armada_play(capsys) -> None:
    config = {"max_turns": 40}
    assert main(["play", "builtin:greedy", "builtin:random", "--seed", "7", "--config", json.dumps(config),
                 "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    by_spec = armada.run("galaxy", ["builtin:greedy", "builtin:random"], seed=7, config=config)
    assert without_time(by_spec.summary()) == without_time(played)
    in_process = armada.run("galaxy", [starter_class("galaxy", "greedy"), starter_class("galaxy", "random")],
                            seed=7, config=config)
    assert (in_process.winner, in_process.turns) == (played["winner"], played["turns"])
    assert game_content(in_process.replay)["steps"] == game_content(by_spec.replay)["steps"]
    rebuild_states(in_process.replay)


def test_a_callable_bot_and_its_crash() -> None:
    def idle(request: dict) -> dict:
        return {"name": "Idle"} if request["type"] == "init" else (
            {"probes": []} if request["type"] == "scout" else {"fleets": []})

    def broken(request: dict) -> dict:
        if request["type"] == "command":
            raise RuntimeError("oops")
        return idle(request)

    outcome = armada.run("galaxy", [idle, broken], seed=3, config={"max_turns": 5})
    assert outcome.winner == 1 and outcome.result.outcome == "forfeit"
    assert [p.name for p in outcome.players] == ["Idle", "Idle"]
    assert outcome.players[1].status == "crashed" and "RuntimeError: oops" in outcome.players[1].log
    assert outcome.turns == 0  # the fault came in turn 1 (D-R-1)


def test_a_forfeit_in_turn_7_counts_6_turns_everywhere() -> None:
    # D-R-1: engine result, referee result, replay result and its game_over event agree
    def late(request: dict) -> dict:
        if request.get("turn") == 7 and request["type"] == "scout":
            return {"probes": "all"}  # the wrong shape: a protocol fault found by the engine (GX-22)
        return {"probes": []} if request["type"] == "scout" else {"fleets": []}

    outcome = armada.run("galaxy", [late, late], seed=1)
    assert outcome.turns == 6 and outcome.replay["result"]["turns"] == 6
    (over,) = select(replay_events(outcome.replay), kinds=["game_over"])
    assert over.data["result"]["turns"] == 6


def test_session_plays_step_by_step_like_a_match() -> None:
    config = {"max_turns": 30}
    session = armada.Session("galaxy", seed=5, config=config)
    assert session.init_message(2)["seat"] == 2 and session.init_message(1)["config"] == session.config
    bots = {seat: starter_class("galaxy", "greedy")() for seat in (1, 2)}
    from armada.bot.runtime import respond

    for seat, bot in bots.items():
        respond(bot, session.init_message(seat))
    while not session.done:
        asked = session.requests()
        assert all(request["bank_ms"] == 10000 for request in asked.values())
        session.step({seat: respond(bots[seat], request) for seat, request in asked.items()})
    outcome = armada.run("galaxy", ["builtin:greedy", "builtin:greedy"], seed=5, config=config)
    assert (session.result.winner, session.result.turns) == (outcome.winner, outcome.turns)
    assert session.replay()["steps"] == outcome.replay["steps"]
    with pytest.raises(RuntimeError):
        session.requests()


def test_session_forfeit_and_wrong_shapes() -> None:
    session = armada.Session("mothership", seed=1)
    events = session.step({1: {"mothership": {"defence": 0}, "fighters": []}, 2: {"mothership": {"defence": 1}}})
    assert session.done and session.result.outcome == "forfeit" and session.result.winner is None
    assert session.faults[1].status == "invalid" and events == []
    galaxy = armada.Session("galaxy", seed=1)
    galaxy.forfeit(2, "timeout", "too slow")
    assert galaxy.result.winner == 1 and galaxy.replay()["seats"][1]["status"] == "timeout"


def test_mothership_random_follows_the_seed() -> None:
    # ARMADA_BOT_SEED: the random starter's orders change with --seed and repeat with it
    def orders(seed: int) -> dict:
        outcome = armada.run("mothership", ["builtin:random", "builtin:balanced"], seed=seed)
        return outcome.replay["steps"][0]["answers"]["1"]

    assert orders(1) == orders(1)
    assert orders(1) != orders(2)


@pytest.mark.parametrize("seed", [-5, 2**63, 2**64])
def test_a_seed_armada_play_refuses_is_refused_by_run_and_session(seed: int) -> None:
    """Before: armada.run and armada.Session took any integer and recorded it, though the engines
    reduce it modulo 2**64 (2**64 played seed 0's game, -5 that of 2**64 - 5) and `armada play
    --seed` takes only 0..2**63 - 1: the replay's seed could not be played again."""
    with pytest.raises(ValueError, match=rf"seed must be from 0 to {2**63 - 1}.*got {seed}"):
        armada.Session("galaxy", seed=seed)
    with pytest.raises(ValueError, match=rf"seed must be from 0 to {2**63 - 1}.*got {seed}"):
        armada.run("galaxy", ["builtin:greedy", "builtin:random"], seed=seed)
    assert armada.Session("galaxy", seed=2**63 - 1).replay()["seed"] == 2**63 - 1


def test_a_game_that_is_neither_a_name_nor_an_engine_is_named_unknown() -> None:
    with pytest.raises(ValueError, match=r"unknown game 5: give a game's name \(galaxy, mothership\)"):
        armada.Session(5, seed=1)  # type: ignore[arg-type]
