"""Travel and arrival (GX-6, GX-11, GX-12), with the seed's P1-P6-P11-P12 golden case."""

from __future__ import annotations

from .galaxy_helpers import clear_board, events_of, fleet, frame_of, new_state, observe, put, turn


def test_golden_p1_to_p12_with_a_battleship_takes_six_turns() -> None:
    # GX-11 seed example: distance 3 with a battleship = 6 turns: launched in turn 1,
    # it lands in the arrival step of turn 1 + 6 - 1 = 6, along P1-P6-P11-P12.
    state = new_state(8, neutral_growth=[0, 0])
    clear_board(state)
    _, command = turn(state, fleets={1: [fleet(1, 12, b=1, c=2)]})
    (launch,) = events_of(command, "launch")
    assert launch["fleet"]["launched"] == 1 and launch["fleet"]["arrives"] == 6
    expected_positions = {1: [0.5, 0.5], 2: [1.0, 1.0], 3: [1.5, 1.5], 4: [2.0, 2.0], 5: [2.0, 2.5]}
    for t in range(1, 6):
        frame = frame_of(state)
        assert frame["turn"] == t
        (moving,) = frame["fleets"]
        assert moving["path"] == [1, 6, 11, 12]
        assert moving["position"] == expected_positions[t]
        assert state.planet(12).owner == 0
        (seen,) = observe(state, 1)["fleets"]
        assert seen["turns_left"] == 6 - t
        if t < 5:
            turn(state)
    _, command = turn(state)
    assert state.turn == 7
    assert [e["planet"] for e in events_of(command, "arrival")] == [12]
    assert state.planet(12).owner == 1
    assert frame_of(state)["fleets"] == []


def test_cruisers_alone_travel_one_unit_per_turn() -> None:
    # GX-6: no battleship: distance turns; distance 1 lands in the launch turn itself (t + 1 - 1)
    state = new_state(8, neutral_growth=[0, 0])
    clear_board(state)
    _, command = turn(state, fleets={1: [fleet(1, 12, c=2), fleet(1, 2, c=1)]})
    assert [e["fleet"]["arrives"] for e in events_of(command, "launch")] == [3, 1]
    assert [e["planet"] for e in events_of(command, "arrival")] == [2]
    assert state.planet(2).owner == 1


def test_fleets_do_not_fight_on_the_way() -> None:
    # GX-11: the fleet passes P6 and P11 (enemy planets) without a battle
    state = new_state(8, neutral_growth=[0, 0])
    clear_board(state)
    put(state, 6, 2, c=50)
    put(state, 11, 2, c=50)
    turn(state, fleets={1: [fleet(1, 12, c=1)]})
    _, t2 = turn(state)
    _, t3 = turn(state)
    assert events_of(t2, "battle") == []
    assert [b["planet"] for b in events_of(t3, "battle")] == [12]
    assert state.planet(12).owner == 1


def test_owner_fleets_join_the_garrison_before_the_battle() -> None:
    # GX-12: seat 1 reinforces planet 2 while seat 2 attacks it in the same turn
    state = new_state(8, neutral_growth=[0, 0])
    clear_board(state)
    put(state, 2, 1, n=1)
    put(state, 3, 2, c=2)
    _, command = turn(state, fleets={1: [fleet(1, 2, c=2)], 2: [fleet(3, 2, c=2)]})
    (battle,) = events_of(command, "battle")
    attacker, defender = battle["sides"]
    assert attacker["owner"] == 2 and attacker["before"] == {"battleships": 0, "cruisers": 2, "launchers": 0}
    assert defender["owner"] == 1 and defender["before"] == {"battleships": 0, "cruisers": 2, "launchers": 1}
    assert battle["winner"] == 1 and battle["new_owner"] == 1
    assert defender["after"] == {"battleships": 0, "cruisers": 1, "launchers": 0}  # 4 damage on 5


def test_fleets_of_one_player_combine_into_one_attacking_force() -> None:
    # GX-12: two fleets of seat 1 land on the same neutral planet in the same turn
    state = new_state(8, neutral_growth=[0, 0])
    clear_board(state)
    state.planet(6).launchers = 5
    put(state, 2, 1, c=2)
    _, command = turn(state, fleets={1: [fleet(1, 6, c=1), fleet(2, 6, c=2)]})
    (battle,) = events_of(command, "battle")
    assert [s["role"] for s in battle["sides"]] == ["attacker", "defender"]
    assert battle["sides"][0]["before"]["cruisers"] == 3
    assert state.planet(6).owner == 1


def test_a_fleet_sent_to_a_planet_since_lost_attacks_it() -> None:
    # GX-12: ownership is decided at arrival
    state = new_state(8, neutral_growth=[0, 0])
    clear_board(state)
    put(state, 4, 1, c=1)
    put(state, 8, 2, c=5)
    turn(state, fleets={1: [fleet(1, 4, c=3)], 2: [fleet(8, 4, c=5)]})
    assert state.planet(4).owner == 2
    turn(state)
    _, command = turn(state)
    (battle,) = events_of(command, "battle")
    assert battle["planet"] == 4
    assert battle["sides"][0]["owner"] == 1 and battle["sides"][0]["role"] == "attacker"
    assert battle["sides"][1]["owner"] == 2
