"""The starting position: grid and homes (GX-1), start units (GX-3), symmetric neutral planets (GX-4)."""

from __future__ import annotations

from armada.games.galaxy.geometry import mirror

from .galaxy_helpers import new_state


def test_homes_hold_the_start_units() -> None:
    # GX-1, GX-3: planet 1 is seat 1's home, planet 16 seat 2's, each with 5/10/10
    state = new_state(3)
    for seat, pid in ((1, 1), (2, 16)):
        p = state.planet(pid)
        assert p.owner == seat
        assert (p.battleships, p.cruisers, p.launchers) == (5, 10, 10)
        assert p.base == (2, 4, 4)
        assert p.hold == 0
    assert state.turn == 1 and state.phase == "scout"


def test_start_units_come_from_the_config() -> None:
    state = new_state(3, home_units={"battleships": 1, "cruisers": 2, "launchers": 3})
    assert (state.planet(16).battleships, state.planet(16).cruisers, state.planet(16).launchers) == (1, 2, 3)


def test_neutral_planets_hold_only_launchers_in_range() -> None:
    # GX-3, GX-4: launchers 3..15, potential production 0..1 / 1..3 / 1..3
    for seed in range(40):
        state = new_state(seed)
        for p in state.planets[1:15]:
            assert p.owner == 0
            assert p.battleships == p.cruisers == 0
            assert 3 <= p.launchers <= 15
            assert 0 <= p.base[0] <= 1 and 1 <= p.base[1] <= 3 and 1 <= p.base[2] <= 3


def test_neutral_pairs_are_point_symmetric() -> None:
    # GX-4: planet k and 17 - k get identical parameters
    for seed in range(40):
        state = new_state(seed)
        for p in state.planets:
            q = state.planet(mirror(p.id))
            assert (p.launchers, p.base, p.growth_pair) == (q.launchers, q.base, q.growth_pair)


def test_the_seed_decides_the_map() -> None:
    # GX-4, GX-23: same seed same map; the 7 pairs vary between seeds
    def layout(seed: int) -> list:
        return [(p.launchers, p.base) for p in new_state(seed).planets]

    assert layout(11) == layout(11)
    assert len({tuple(layout(seed)) for seed in range(10)}) == 10


def test_neutral_ranges_come_from_the_config() -> None:
    state = new_state(
        5,
        neutral_launchers=[7, 7],
        neutral_production={"battleships": [1, 1], "cruisers": [0, 0], "launchers": [2, 2]},
    )
    for p in state.planets[1:15]:
        assert p.launchers == 7
        assert p.base == (1, 0, 2)
