"""The Galaxy grid (GX-1), distances (GX-2), travel times (GX-6) and display paths (GX-11)."""

from __future__ import annotations

import pytest

from armada.games.galaxy.geometry import HOME, coords, distance, mirror, path, position, travel_time


def test_planets_are_numbered_row_by_row() -> None:
    # GX-1: 1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 16
    assert coords(1) == (0, 0)
    assert coords(4) == (0, 3)
    assert coords(5) == (1, 0)
    assert coords(12) == (2, 3)
    assert coords(16) == (3, 3)
    assert HOME == {1: 1, 2: 16}


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [(1, 2, 1), (1, 6, 1), (1, 16, 3), (1, 12, 3), (4, 13, 3), (6, 7, 1), (5, 8, 3), (2, 14, 3), (7, 7, 0)],
)
def test_distance_is_chebyshev(a: int, b: int, expected: int) -> None:
    # GX-2: a diagonal step counts 1
    assert distance(a, b) == expected
    assert distance(b, a) == expected


def test_travel_time_doubles_with_a_battleship() -> None:
    # GX-6: cruiser 1 unit per turn, battleship 1 unit per 2 turns, the slowest ship sets the pace
    assert travel_time(1, 12, has_battleship=False) == 3
    assert travel_time(1, 12, has_battleship=True) == 6
    assert travel_time(1, 2, has_battleship=True) == 2


def test_path_goes_diagonally_first_then_straight() -> None:
    # GX-11: P1-P6-P11-P12 (not P1-P2-P7-P12)
    assert path(1, 12) == [1, 6, 11, 12]
    assert path(12, 1) == [12, 7, 2, 1]
    assert path(1, 4) == [1, 2, 3, 4]
    assert path(16, 1) == [16, 11, 6, 1]
    assert path(13, 8) == [13, 10, 7, 8]


def test_position_moves_along_the_path() -> None:
    assert position(1, 12, 0) == (0.0, 0.0)
    assert position(1, 12, 1) == (1.0, 1.0)  # at P6
    assert position(1, 12, 1.5) == (1.5, 1.5)
    assert position(1, 12, 2.5) == (2.0, 2.5)  # between P11 and P12
    assert position(1, 12, 3) == (2.0, 3.0)
    assert position(1, 12, 9) == (2.0, 3.0)


def test_mirror_is_point_symmetry() -> None:
    # GX-4: planet k and 17 - k
    for k in range(1, 17):
        r, c = coords(k)
        assert coords(mirror(k)) == (3 - r, 3 - c)
