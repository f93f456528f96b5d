"""Production with the hold bonus (GX-17) and neutral growth shared per pair (GX-4, GX-18)."""

from __future__ import annotations

from armada.games.galaxy.geometry import mirror
from armada.games.galaxy.turn import growth_draws
from armada.games.rng import Rng

from .galaxy_helpers import events_of, new_state, observe, put, turn


def test_home_produces_2_4_4_in_turns_1_to_5_and_4_6_6_from_turn_6() -> None:
    # GX-17 worked numbers
    state = new_state(1)
    garrisons = []
    rates = []
    for _ in range(11):
        home = observe(state, 1)["planets"][0]
        rates.append(tuple(home["production"].values()))
        turn(state)
        p = state.planet(1)
        garrisons.append((p.battleships, p.cruisers, p.launchers))
    assert rates[:5] == [(2, 4, 4)] * 5
    assert rates[5:10] == [(4, 6, 6)] * 5
    assert rates[10] == (6, 8, 8)
    assert garrisons[0] == (7, 14, 14)
    assert garrisons[4] == (15, 30, 30)
    assert garrisons[5] == (19, 36, 36)
    assert state.planet(16).hold == 11


def test_captured_neutral_produces_its_potential_plus_the_hold_bonus() -> None:
    # GX-15, GX-17: base = the planet's potential rate; +2 of each every 5 turns held
    state = new_state(2, neutral_growth=[0, 0])
    put(state, 7, 1, hold=9)
    state.planet(7).base = (0, 1, 2)
    _, command = turn(state)
    p = state.planet(7)
    assert (p.battleships, p.cruisers, p.launchers, p.hold) == (2, 3, 4, 10)
    (production,) = events_of(command, "production")
    assert [7, 1, 2, 3, 4] in production["planets"]
    assert [1, 1, 2, 4, 4] in production["planets"]


def test_neutral_growth_is_shared_by_each_pair() -> None:
    # GX-4, GX-18: every turn each pair draws once; both planets of the pair gain it; owned ones do not
    state = new_state(9)
    put(state, 3, 1)
    seen = set()
    for _ in range(15):
        before = [p.launchers for p in state.planets]
        _, command = turn(state)
        (grown,) = events_of(command, "growth")
        assert len(grown["draws"]) == 7
        gains = dict((pid, gain) for pid, gain in grown["planets"])
        assert 3 not in gains and 14 in gains and 1 not in gains
        for pid, gain in gains.items():
            assert 0 <= gain <= 2
            assert gains[pid] == grown["draws"][state.planet(pid).growth_pair]
            if mirror(pid) in gains:
                assert gains[mirror(pid)] == gain
            assert state.planet(pid).launchers == before[pid - 1] + gain
        seen.update(grown["draws"])
    assert seen == {0, 1, 2}


def test_growth_draws_are_uniform_digits_of_one_draw() -> None:
    rng = Rng(5)
    counts = [0, 0, 0]
    for _ in range(3000):
        for d in growth_draws(rng, 0, 2, 7):
            counts[d] += 1
    assert all(6300 < c < 7700 for c in counts), counts
    before = rng.dump()
    assert growth_draws(rng, 4, 4, 7) == [4] * 7
    assert rng.dump() == before
    assert all(10 <= d <= 12 for d in growth_draws(rng, 10, 12, 7))
