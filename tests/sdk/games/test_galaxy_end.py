"""End of the game: elimination (GX-20), turn limit (GX-21), faults (GX-22), determinism (GX-23)."""

from __future__ import annotations

import json

import pytest

from armada.games.galaxy import GALAXY
from armada.games.galaxy.state import Fleet

from .galaxy_helpers import clear_board, events_of, fleet, new_state, put, result_of, turn


def test_elimination_when_no_planets_and_no_fleets() -> None:
    # GX-20
    state = new_state(1, neutral_growth=[0, 0])
    clear_board(state)
    put(state, 16, 2)
    put(state, 12, 1, c=10)
    _, command = turn(state, fleets={1: [fleet(12, 16, c=10)]})
    assert events_of(command, "elimination") == [{"type": "elimination", "seats": [2]}]
    result = result_of(state)
    assert (result.winner, result.outcome, result.turns) == (1, "elimination", 1)
    assert result.scores["planets"] == {"1": 3, "2": 0}
    assert state.phase == "over" and GALAXY.requests(state) == {}
    with pytest.raises(ValueError, match="over"):
        GALAXY.step(state, {1: {}, 2: {}})


def test_a_fleet_in_flight_keeps_a_player_alive() -> None:
    # GX-20: no planets but a fleet in flight: not eliminated
    state = new_state(1, neutral_growth=[0, 0])
    clear_board(state)
    put(state, 12, 1, c=10)
    put(state, 16, 2, c=1)
    turn(state, fleets={1: [fleet(12, 16, c=10)], 2: [fleet(16, 1, c=1)]})
    assert state.planet(16).owner == 1
    assert GALAXY.result(state) is None
    turn(state)
    assert GALAXY.result(state) is None  # the cruiser is still on its way to planet 1 (3 turns)
    _, command = turn(state)  # it lands, loses, and seat 2 has nothing left
    assert events_of(command, "elimination") == [{"type": "elimination", "seats": [2]}]


def test_both_eliminated_at_once_is_a_draw() -> None:
    # GX-20: no planets left to either seat; their last fleets destroy each other (GX-16)
    state = new_state(1, neutral_growth=[0, 0])
    clear_board(state)
    put(state, 1, 0)
    put(state, 16, 0)
    state.fleets = [Fleet(1, 1, 2, 6, 0, 2, 1, 1), Fleet(2, 2, 11, 6, 0, 2, 1, 1)]
    _, command = turn(state)
    assert events_of(command, "elimination") == [{"type": "elimination", "seats": [1, 2]}]
    result = result_of(state)
    assert (result.winner, result.outcome) == (None, "draw")


def test_turn_limit_more_planets_wins() -> None:
    # GX-21
    state = new_state(1, max_turns=3, neutral_growth=[0, 0])
    clear_board(state)
    turn(state, fleets={2: [fleet(16, 15, c=1)]})
    turn(state)
    assert GALAXY.result(state) is None
    _, command = turn(state)
    result = result_of(state)
    assert (result.winner, result.outcome, result.turns) == (2, "turn_limit", 3)
    assert result.scores["planets"] == {"1": 1, "2": 2}
    assert events_of(command, "game_over")[0]["result"] == result.to_dict()


def test_turn_limit_equal_planets_larger_mle_wins_else_draw() -> None:
    # GX-21: planets, then total MLE (garrisons, launchers, fleets in flight), then draw
    state = new_state(1, max_turns=2)
    turn(state)
    turn(state)
    result = result_of(state)
    assert (result.winner, result.outcome) == (None, "draw")
    assert result.scores["mle"]["1"] == result.scores["mle"]["2"]

    state = new_state(1, max_turns=2)
    state.planet(16).launchers -= 1
    turn(state, fleets={1: [fleet(1, 16, b=5)]})  # still in flight at the end: it counts
    turn(state)
    result = result_of(state)
    assert (result.winner, result.outcome) == (1, "turn_limit")
    assert result.scores["mle"]["1"] == result.scores["mle"]["2"] + 1


def shaped_faults(step):
    return {seat: fault.status for seat, fault in step.faults.items()}


@pytest.mark.parametrize(
    "reply",
    [{"probes": 3}, {"probes": None}, {"probes": {"a": 1}}, [], "probes", None],
)
def test_wrong_scout_shape_is_a_protocol_fault(reply) -> None:
    # GX-22: a reply of the wrong shape disqualifies; the other seat wins by forfeit
    state = new_state(1)
    step = GALAXY.step(state, {1: {"probes": [2]}, 2: reply})
    assert shaped_faults(step) == {2: "protocol"}
    assert "scout reply" in step.faults[2].detail
    result = result_of(state)
    assert (result.winner, result.outcome) == (1, "forfeit")
    assert events_of(step, "fault")[0]["seat"] == 2


@pytest.mark.parametrize("reply", [{"fleets": "none"}, {"fleets": [[1, 2, 0, 3]]}, {"fleets": [None]}, 7])
def test_wrong_command_shape_is_a_protocol_fault(reply) -> None:
    state = new_state(1)
    GALAXY.step(state, {1: {}, 2: {}})
    step = GALAXY.step(state, {1: reply, 2: {"fleets": [fleet(16, 15, c=1)]}})
    assert shaped_faults(step) == {1: "protocol"}
    assert result_of(state).winner == 2


def test_both_faulting_in_the_same_step_is_a_draw() -> None:
    state = new_state(1)
    step = GALAXY.step(state, {1: {"probes": "x"}, 2: {"probes": 1}})
    assert shaped_faults(step) == {1: "protocol", 2: "protocol"}
    result = result_of(state)
    assert (result.winner, result.outcome) == (None, "forfeit")


def test_missing_keys_read_as_empty_lists() -> None:
    # docs/games/galaxy-schema.md: a missing probes/fleets key is an empty list, not a fault
    state = new_state(1)
    assert GALAXY.step(state, {1: {}, 2: {"other": 1}}).faults == {}
    assert GALAXY.step(state, {1: {}, 2: {}}).faults == {}
    assert state.turn == 2


def test_step_needs_both_answers() -> None:
    state = new_state(1)
    with pytest.raises(ValueError, match="seat 2"):
        GALAXY.step(state, {1: {}})


def scripted_game(seed: int) -> tuple[str, str]:
    """A game with fixed answers; returns the final dump and all events, as JSON text."""
    state = new_state(seed, max_turns=30)
    log = []
    t = 0
    while GALAXY.result(state) is None:
        t += 1
        probes = {1: [t % 16 + 1, 16, 6], 2: [1, (t * 7) % 16 + 1]}
        fleets = {
            1: [fleet(1, (t * 5) % 15 + 2, c=2), fleet(1, 6, b=1)],
            2: [fleet(16, 16 - (t * 3) % 15 - 1, c=3), fleet(16, 11, b=1, c=1)],
        }
        scout, command = turn(state, fleets=fleets, probes=probes)
        log.append([scout.events, command.events, GALAXY.frame(state)])
    return json.dumps(GALAXY.dump_state(state), sort_keys=True), json.dumps(log, sort_keys=True)


def test_same_seed_and_answers_give_the_same_game_byte_for_byte() -> None:
    # GX-23
    assert scripted_game(42) == scripted_game(42)
    assert scripted_game(42) != scripted_game(43)


def test_a_forfeit_counts_only_the_turns_completed_before_it() -> None:
    # D-R-1: a protocol fault in turn 7 ends the game with 6 turns played, in the result and its event
    state = new_state(1)
    for _ in range(6):
        turn(state)
    assert state.turn == 7
    step = GALAXY.step(state, {1: {"probes": []}, 2: {"probes": "x"}})
    assert result_of(state).turns == 6
    assert events_of(step, "game_over")[0]["result"]["turns"] == 6


def test_a_neutral_home_loaded_from_a_state_does_not_grow() -> None:
    # GX-18 / GX-4: growth is a pair's draw; a home planet made neutral in a saved state has no pair
    state = new_state(1, neutral_growth=[2, 2])
    data = GALAXY.dump_state(state)
    home = next(p for p in data["planets"] if p["id"] == 1)
    home["owner"] = 0
    loaded = GALAXY.load_state(data)
    before = loaded.planet(1).launchers
    _, command = turn(loaded)
    assert loaded.planet(1).launchers == before
    grown = dict(map(tuple, events_of(command, "growth")[0]["planets"]))
    assert 1 not in grown and grown[2] == 2
