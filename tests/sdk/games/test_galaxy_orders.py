"""Fleet orders (GX-10) and launches (GX-11)."""

from __future__ import annotations

from typing import Any

from armada.games.galaxy import GALAXY

from .galaxy_helpers import events_of, fleet, new_state, observe, put, turn


def test_bad_orders_are_dropped_with_warnings_not_faults() -> None:
    # GX-10: not owned, bad target, to == from, negative or non-integer counts, empty fleet
    state = new_state(2)
    orders: list[dict[str, Any]] = [
        fleet(16, 15, c=1),
        fleet(2, 1, c=1),
        {"from": 1, "to": 17, "cruisers": 1},
        {"from": 1, "to": "2", "cruisers": 1},
        fleet(1, 1, c=1),
        fleet(1, 2, b=-1),
        {"from": 1, "to": 2, "battleships": 0, "cruisers": 1.0},
        {"from": 1, "to": 2, "battleships": False, "cruisers": 1},
        fleet(1, 2),
        {"to": 2, "cruisers": 1},
        fleet(1, 2, c=1),
    ]
    _, command = turn(state, fleets={1: orders})
    assert command.faults == {}
    launches = events_of(command, "launch")
    assert len(launches) == 1
    assert launches[0]["fleet"]["from"] == 1 and launches[0]["fleet"]["cruisers"] == 1
    warnings = observe(state, 1)["warnings"]
    assert len(warnings) == 10
    expected = [
        "fleet order 1 dropped: planet 16 is not yours",
        "fleet order 2 dropped: planet 2 is not yours",
        "fleet order 3 dropped: 'to' 17 is not a planet id",
        "fleet order 4 dropped: 'to' \"2\" is not a planet id",
        "fleet order 5 dropped: 'to' equals 'from'",
        "fleet order 6 dropped: 'battleships' -1",
        "fleet order 7 dropped: 'cruisers' 1.0",
        "fleet order 8 dropped: 'battleships' false",
        "fleet order 9 dropped: the fleet is empty",
        "fleet order 10 dropped: 'from' null",
    ]
    for text, warning in zip(expected, warnings, strict=True):
        assert warning.startswith(text), (text, warning)
    assert observe(state, 2)["warnings"] == []
    assert events_of(command, "warnings") == [{"type": "warnings", "seat": 1, "phase": "command", "warnings": warnings}]


def test_missing_counts_read_as_zero() -> None:
    state = new_state(2)
    _, command = turn(state, fleets={1: [{"from": 1, "to": 2, "cruisers": 3}]})
    (launch,) = events_of(command, "launch")
    assert (launch["fleet"]["battleships"], launch["fleet"]["cruisers"]) == (0, 3)


def test_orders_from_one_planet_are_taken_in_order_and_dropped_whole() -> None:
    # GX-10: an order that needs more ships than remain is dropped whole; later smaller ones still go
    state = new_state(2)
    orders = [fleet(1, 2, c=6), fleet(1, 5, b=1, c=5), fleet(1, 6, c=4), fleet(1, 6, b=5)]
    _, command = turn(state, fleets={1: orders})
    sent = [(e["fleet"]["to"], e["fleet"]["battleships"], e["fleet"]["cruisers"]) for e in events_of(command, "launch")]
    assert sent == [(2, 0, 6), (6, 0, 4), (6, 5, 0)]
    warnings = observe(state, 1)["warnings"]
    assert warnings == [
        "fleet order 2 dropped: it needs 1 battleships and 5 cruisers, planet 1 has 5 and 4 left",
    ]
    home = state.planet(1)
    # everything left at once (launchers never move), then production 2/4/4 (GX-17)
    assert (home.battleships, home.cruisers, home.launchers) == (2, 4, 14)


def test_fleets_leave_at_once_and_ids_do_not_reveal_the_other_seat() -> None:
    # GX-11 (launch at once), GX-19 (fleet ids: odd for seat 1, even for seat 2)
    state = new_state(2)
    turn(state, fleets={1: [fleet(1, 12, c=1), fleet(1, 4, c=1)], 2: [fleet(16, 5, b=1)]})
    ids1 = [f["id"] for f in observe(state, 1)["fleets"]]
    ids2 = [f["id"] for f in observe(state, 2)["fleets"]]
    assert ids1 == [1, 3] and ids2 == [2]
    turn(state, fleets={1: [fleet(1, 8, c=1)]})
    assert [f["id"] for f in observe(state, 1)["fleets"]] == [1, 3, 5]


def test_fleet_to_an_own_planet_reinforces_it() -> None:
    state = new_state(2, neutral_growth=[0, 0])
    put(state, 2, 1)
    turn(state, fleets={1: [fleet(1, 2, b=0, c=3)]})
    p = state.planet(2)
    assert p.owner == 1
    assert p.cruisers == 3 + p.base[1]  # arrived this turn (distance 1), then produced
    assert GALAXY.result(state) is None
