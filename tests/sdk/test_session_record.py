"""`Session(record=False)` (what armada.rl plays): no replay recorded while playing, the same replay
recorded from the kept answers when asked, byte for byte."""

from __future__ import annotations

from typing import Any

import armada
from armada.replay import replay_bytes
from tests.sdk.referee.sumrace import SUMRACE


def _both(game: str, seed: int, config: dict[str, Any] | None = None) -> tuple[armada.Session, armada.Session]:
    return (armada.Session(game, seed=seed, config=config),
            armada.Session(game, seed=seed, config=config, record=False))


def test_an_unrecorded_galaxy_game_gives_the_recorded_games_replay_and_events() -> None:
    recorded, lazy = _both("galaxy", 4, {"max_turns": 6})
    while not recorded.done:
        asked = recorded.requests()
        assert lazy.requests() == asked
        if asked[1]["type"] == "scout":
            replies: dict[int, Any] = {1: {"probes": [16, 15]}, 2: {"probes": [1], "debug": {"text": "hi"}}}
        else:
            replies = {1: {"fleets": [{"from": 1, "to": 6, "battleships": 1, "cruisers": 1}]}, 2: {"fleets": []}}
        events = recorded.step(replies)
        assert lazy.step(replies) == events
        for value in replies[1].values():
            value.clear()  # what the caller does with its objects later changes nothing kept
    assert lazy.done and lazy.result == recorded.result
    assert replay_bytes(lazy.replay()) == replay_bytes(recorded.replay())
    assert replay_bytes(lazy.replay()) == replay_bytes(recorded.replay())  # asked twice: the same


def test_an_unrecorded_forfeit_and_an_owned_advance_record_the_same_replay() -> None:
    recorded, lazy = _both("galaxy", 2, {"max_turns": 5})
    for session in (recorded, lazy):
        session.step({1: {"probes": []}, 2: {"probes": []}})
    fleets = [{"from": 1, "to": 2, "battleships": 1, "cruisers": 0}]
    recorded.step({1: {"fleets": fleets}, 2: {"fleets": []}})
    lazy.advance({1: {"fleets": list(fleets)}, 2: {"fleets": []}}, owned=True)
    for session in (recorded, lazy):
        session.step({1: {"probes": "all"}, 2: {"probes": []}})  # a wrong shape: seat 1 forfeits
    assert lazy.result == recorded.result and lazy.result is not None and lazy.result.outcome == "forfeit"
    assert replay_bytes(lazy.replay()) == replay_bytes(recorded.replay())
    mothership = _both("mothership", 3)
    for session in mothership:
        session.step({1: {"mothership": {"defence": 0}}, 2: {"mothership": {"defence": 1}}})
    assert replay_bytes(mothership[1].replay()) == replay_bytes(mothership[0].replay())


def test_an_engine_with_an_unhashable_configuration_records_alike() -> None:
    recorded = armada.Session(SUMRACE, seed=5, config={"target": 5})
    lazy = armada.Session(SUMRACE, seed=5, config={"target": 5}, record=False)
    while not recorded.done:
        for session in (recorded, lazy):
            session.step({1: {"n": 2}, 2: {"n": 1}})
    assert lazy.config == recorded.config == {"target": 5, "max_turns": 20}
    assert replay_bytes(lazy.replay()) == replay_bytes(recorded.replay())
