"""Battles played through the engine: GX-13, GX-14 (golden), GX-15 captures, GX-16 contested neutrals."""

from __future__ import annotations

from armada.games.galaxy import GALAXY

from .galaxy_helpers import clear_board, events_of, fleet, new_state, put, turn

UNITS = ("battleships", "cruisers", "launchers")


def units(b: int, c: int, n: int) -> dict[str, int]:
    return dict(zip(UNITS, (b, c, n), strict=True))


def test_golden_seed_battle_through_the_engine() -> None:
    # GX-14: 2 battleships + 3 cruisers (14) attack 1 battleship + 1 cruiser + 3 launchers (9):
    # the attacker wins, keeps 2 battleships and takes the planet (GX-15)
    state = new_state(3, neutral_growth=[0, 0])
    clear_board(state)
    put(state, 2, 2, b=1, c=1, n=3, hold=3)
    state.planet(2).base = (0, 0, 0)  # it produces nothing while the battleship travels
    _, command = turn(state, fleets={1: [fleet(1, 2, b=2, c=3)]})
    assert state.turn == 2  # distance 1 with a battleship: 2 turns
    _, command = turn(state)
    (battle,) = events_of(command, "battle")
    attacker, defender = battle["sides"]
    assert attacker == {"owner": 1, "role": "attacker", "before": units(2, 3, 0), "after": units(2, 0, 0)}
    assert defender == {"owner": 2, "role": "defender", "before": units(1, 1, 3), "after": units(0, 0, 0)}
    assert battle["winner"] == 1 and battle["new_owner"] == 1 and battle["turn"] == 2
    assert events_of(command, "capture") == [{"type": "capture", "planet": 2, "owner": 1, "previous": 2}]
    p = state.planet(2)
    # GX-15: survivors, no launchers, hold restarts at 0 (then 1 after production)
    assert (p.owner, p.battleships, p.cruisers, p.launchers, p.hold) == (1, 2, 0, 0, 1)


def test_golden_tie_leaves_exactly_one_cruiser() -> None:
    # GX-13: 5 cruisers (10) against 10 launchers: the attacker wins with 1 cruiser
    state = new_state(
        3, neutral_growth=[0, 0], neutral_production={"battleships": [0, 0], "cruisers": [0, 0], "launchers": [0, 0]}
    )
    clear_board(state)
    state.planet(5).launchers = 10
    _, command = turn(state, fleets={1: [fleet(1, 5, c=5)]})
    (battle,) = events_of(command, "battle")
    assert battle["sides"][0]["after"] == units(0, 1, 0)
    assert battle["winner"] == 1
    p = state.planet(5)
    assert (p.owner, p.battleships, p.cruisers, p.launchers) == (1, 0, 1, 0)


def test_defender_wins_and_keeps_its_survivors() -> None:
    # GX-13, GX-14: the defender takes damage equal to the attacker's MLE, launchers first
    state = new_state(3, neutral_growth=[0, 0])
    clear_board(state)
    state.planet(5).launchers = 9
    _, command = turn(state, fleets={1: [fleet(1, 5, c=4)]})
    (battle,) = events_of(command, "battle")
    assert battle["winner"] == 0 and battle["new_owner"] == 0
    assert battle["sides"][0]["after"] == units(0, 0, 0)
    assert battle["sides"][1]["after"] == units(0, 0, 1)
    assert state.planet(5).owner == 0 and state.planet(5).launchers == 1


def test_captured_home_planet_produces_the_home_rate() -> None:
    # GX-15: a home planet produces 2/4/4 for its new owner, from hold 0
    state = new_state(3, neutral_growth=[0, 0])
    clear_board(state)
    put(state, 12, 1, c=40)
    put(state, 16, 2, hold=30)
    turn(state, fleets={1: [fleet(12, 16, c=40)]})
    p = state.planet(16)
    assert (p.owner, p.battleships, p.cruisers, p.launchers, p.hold) == (1, 2, 40 + 4, 4, 1)


def contested(seed: int):
    """Both seats send 3 cruisers at once to neutral planet 6 holding 7 launchers (equal MLE, odd)."""
    state = new_state(seed, neutral_growth=[0, 0])
    clear_board(state)
    state.planet(6).launchers = 7
    put(state, 11, 2, c=3)
    _, command = turn(state, fleets={1: [fleet(1, 6, c=3)], 2: [fleet(11, 6, c=3)]})
    return state, command


def test_contested_neutral_with_equal_forces_uses_the_seeded_draw() -> None:
    # GX-16: 7 launchers, equal MLE: the seeded draw gives one side 4; it wins its half with 1 cruiser,
    # the other wins its 3 with 2 cruisers, and then beats the first in the final fight.
    winners = set()
    for seed in range(12):
        state, command = contested(seed)
        (battle,) = events_of(command, "battle")
        drawn = battle["contest"]["draw"]
        assert drawn in (1, 2)
        assert battle["contest"]["split"][drawn - 1] == 4
        other = 3 - drawn
        assert battle["winner"] == other and state.planet(6).owner == other
        assert battle["contest"]["final"] is not None
        sides = {s["owner"]: s for s in battle["sides"]}
        assert sides[other]["after"] == units(0, 1, 0)
        assert sides[drawn]["after"] == units(0, 0, 0)
        assert sides[0]["before"] == units(0, 0, 7) and sides[0]["after"] == units(0, 0, 0)
        winners.add(other)
        # GX-23: the draw is part of the seeded stream: replaying gives the same draw
        again, command2 = contested(seed)
        assert events_of(command2, "battle") == [battle]
        assert GALAXY.dump_state(again) == GALAXY.dump_state(state)
    assert winners == {1, 2}


def test_contested_neutral_unequal_forces_need_no_draw() -> None:
    # GX-16: the larger attacker fights the extra launcher; no draw is consumed
    state = new_state(5, neutral_growth=[0, 0])
    clear_board(state)
    state.planet(6).launchers = 7
    put(state, 11, 2, c=5)
    rng_before = state.rng.dump()
    _, command = turn(state, fleets={1: [fleet(1, 6, c=3)], 2: [fleet(11, 6, c=5)]})
    (battle,) = events_of(command, "battle")
    assert battle["contest"]["draw"] is None
    assert battle["contest"]["split"] == [3, 4]
    assert state.rng.dump() == rng_before  # growth 0..0 draws nothing either
    assert state.planet(6).owner == 2


def test_contested_neutral_both_repelled_keeps_surviving_launchers() -> None:
    # GX-16: none left: the planet stays neutral with the launchers that survived
    state = new_state(5, neutral_growth=[0, 0])
    clear_board(state)
    state.planet(6).launchers = 12
    put(state, 11, 2, c=2)
    _, command = turn(state, fleets={1: [fleet(1, 6, c=1)], 2: [fleet(11, 6, c=2)]})
    (battle,) = events_of(command, "battle")
    assert battle["winner"] == 0 and battle["new_owner"] == 0
    assert state.planet(6).launchers == 4 + 2
    assert battle["sides"][2]["after"] == units(0, 0, 6)


def test_contested_neutral_one_survivor_captures_without_launchers() -> None:
    # GX-16 then GX-15: seat 2 wins its half, seat 1 loses its half; seat 2 captures, launchers gone
    state = new_state(
        5, neutral_growth=[0, 0], neutral_production={"battleships": [0, 0], "cruisers": [0, 0], "launchers": [0, 0]}
    )
    clear_board(state)
    state.planet(6).launchers = 10
    put(state, 11, 2, c=4)
    _, command = turn(state, fleets={1: [fleet(1, 6, c=1)], 2: [fleet(11, 6, c=4)]})
    (battle,) = events_of(command, "battle")
    assert battle["contest"]["halves"][0]["won"] is False
    assert battle["contest"]["halves"][0]["launchers_left"] == 3
    assert battle["winner"] == 2
    p = state.planet(6)
    assert (p.owner, p.cruisers, p.launchers) == (2, 2, 0)  # 8 vs 5: 5 damage kills 2 of 4 cruisers


def test_contested_neutral_equal_survivors_destroy_each_other() -> None:
    # GX-16: equal MLE in the final fight: both destroyed, neutral with 0 launchers
    state = new_state(5, neutral_growth=[0, 0])
    clear_board(state)
    state.planet(6).launchers = 4
    put(state, 11, 2, c=3)
    _, command = turn(state, fleets={1: [fleet(1, 6, c=3)], 2: [fleet(11, 6, c=3)]})
    (battle,) = events_of(command, "battle")
    assert battle["winner"] is None and battle["new_owner"] == 0
    assert battle["contest"]["final"] == [units(0, 2, 0), units(0, 2, 0)]
    assert state.planet(6).owner == 0 and state.planet(6).launchers == 0
