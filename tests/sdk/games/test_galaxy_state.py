"""dump_state/load_state round trips (replays, --from-state) and the replay frame."""

from __future__ import annotations

import copy
import json

import pytest

from armada.games.galaxy import GALAXY

from .galaxy_helpers import clear_board, fleet, frame_of, new_state, turn


def advanced(seed: int = 3):
    state = new_state(seed)
    turn(state, fleets={1: [fleet(1, 12, b=1, c=2), fleet(1, 2, c=3)], 2: [fleet(16, 11, c=4)]}, probes={1: [16]})
    turn(state, fleets={2: [fleet(16, 1, b=2)]})
    GALAXY.step(state, {1: {"probes": [6]}, 2: {"probes": [1, 1]}})  # stop in the command phase
    return state


def test_dump_is_json_and_round_trips() -> None:
    state = advanced()
    data = GALAXY.dump_state(state)
    text = json.dumps(data)
    loaded = GALAXY.load_state(json.loads(text))
    assert GALAXY.dump_state(loaded) == data
    assert loaded.rng.dump() == state.rng.dump()


def test_a_loaded_state_plays_on_exactly_like_the_original() -> None:
    # GX-23 with --from-state: the rest of the game depends only on the dump and the answers
    original = advanced()
    loaded = GALAXY.load_state(json.loads(json.dumps(GALAXY.dump_state(original))))
    answers = {1: {"fleets": [fleet(1, 6, c=1)]}, 2: {"fleets": [fleet(16, 7, b=1)]}}
    events = []
    for state in (original, loaded):
        log = [GALAXY.step(state, copy.deepcopy(answers)).events]
        for t in range(10):
            log.append(GALAXY.step(state, {1: {"probes": [t + 2]}, 2: {"probes": [15 - t]}}).events)
            log.append(GALAXY.step(state, {1: {"fleets": [fleet(1, t + 2, c=1)]}, 2: {}}).events)
        events.append(json.dumps([log, GALAXY.dump_state(state)]))
    assert events[0] == events[1]


def test_finished_game_round_trips() -> None:
    state = new_state(1, max_turns=1)
    turn(state)
    loaded = GALAXY.load_state(GALAXY.dump_state(state))
    assert GALAXY.result(loaded) == GALAXY.result(state)
    assert GALAXY.requests(loaded) == {}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("rng"), "rng is missing"),
        (lambda d: d.update(format="mothership-state"), "format"),
        (lambda d: d.update(phase="battle"), "phase"),
        (lambda d: d["planets"].pop(), "16 planets"),
        (lambda d: d["planets"][3].update(owner=3), r"planets\[3\].owner"),
        (lambda d: d["planets"][3].update(id=9), r"planets\[3\].id"),
        (lambda d: d["planets"][0].update(cruisers=-1), r"planets\[0\].cruisers"),
        (lambda d: d["fleets"][0].update(to="x"), r"fleets\[0\].to"),
        (lambda d: d["fleets"][0].update(arrives=1), "was due"),
        (lambda d: d["config"].update(max_turns=0), "config.max_turns"),
        (lambda d: d.update(turn=500), "turn"),
        (lambda d: d.update(result={"winner": 1, "outcome": "forfeit", "turns": 2, "scores": {}}), "result"),
        (lambda d: d.update(probes=[1]), "probes"),
        (lambda d: d.update(rng=-5), "Rng"),
    ],
)
def test_bad_state_data_is_rejected_with_a_clear_message(change, message) -> None:
    data = GALAXY.dump_state(advanced())
    change(data)
    with pytest.raises(ValueError, match=message):
        GALAXY.load_state(data)


def test_load_rejects_non_objects() -> None:
    with pytest.raises(ValueError, match="must be an object"):
        GALAXY.load_state([1, 2])  # type: ignore[arg-type]


def test_frame_draws_the_whole_board_after_the_command_step() -> None:
    state = new_state(3)
    clear_board(state)
    start = frame_of(state)
    assert start["turn"] == 0 and len(start["planets"]) == 16 and start["fleets"] == []
    GALAXY.step(state, {1: {"probes": [6]}, 2: {"probes": []}})
    assert GALAXY.frame(state) is None  # nothing new to draw after a scout step
    GALAXY.step(state, {1: {"fleets": [fleet(1, 12, b=1), fleet(1, 5, c=2)]}, 2: {}})
    frame = frame_of(state)
    assert frame["turn"] == 1
    assert frame["probes"] == {"1": [6], "2": []}
    (moving,) = frame["fleets"]
    assert moving["owner"] == 1 and moving["path"] == [1, 6, 11, 12] and moving["position"] == [0.5, 0.5]
    p5 = frame["planets"][4]
    assert p5["id"] == 5 and p5["owner"] == 1 and p5["launchers"] == p5["production"]["launchers"]
    assert frame["planet_count"] == {"1": 2, "2": 1}
    assert frame["mle"]["1"] > 0 and frame["result"] is None
    json.dumps(frame)
