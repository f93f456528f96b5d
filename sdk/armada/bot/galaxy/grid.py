"""Geometry of the Galaxy grid: positions, distances, travel times and paths.

Planets 1..16 lie on a 4x4 grid numbered row by row (GX-1); functions take planet ids.
"""

from __future__ import annotations

#: Side of the square grid and number of planets (GX-1).
GRID_SIZE = 4
PLANETS = GRID_SIZE * GRID_SIZE
#: Home planet of each seat (GX-1).
HOMES: dict[int, int] = {1: 1, 2: PLANETS}


def _check(planet: int) -> int:
    if isinstance(planet, bool) or not isinstance(planet, int) or not 1 <= planet <= PLANETS:
        raise ValueError(f"not a planet id (1..{PLANETS}): {planet!r}")
    return planet


def position(planet: int) -> tuple[int, int]:
    """(row, col) of a planet, both from 0 (GX-1: planet 1 is (0, 0), planet 16 is (3, 3))."""
    return divmod(_check(planet) - 1, GRID_SIZE)


def planet_at(row: int, col: int) -> int:
    """The id of the planet at (row, col)."""
    if not (0 <= row < GRID_SIZE and 0 <= col < GRID_SIZE):
        raise ValueError(f"no planet at row {row}, col {col}")
    return row * GRID_SIZE + col + 1


def distance(a: int, b: int) -> int:
    """Chebyshev distance between two planets: a diagonal step counts 1 (GX-2)."""
    (ra, ca), (rb, cb) = position(a), position(b)
    return max(abs(ra - rb), abs(ca - cb))


def travel_time(a: int, b: int, battleships: int | bool = 0) -> int:
    """Turns a fleet needs from a to b: distance, doubled if it has any battleship (GX-6)."""
    return distance(a, b) * (2 if battleships else 1)


def arrival_turn(turn: int, a: int, b: int, battleships: int | bool = 0) -> int:
    """Turn in whose arrival step a fleet launched in `turn` lands (GX-11: turn + travel time - 1)."""
    return turn + travel_time(a, b, battleships) - 1


def path(a: int, b: int) -> list[int]:
    """Planets a fleet passes from a to b, both ends included: diagonal steps first, then straight (GX-11)."""
    (r, c), (rb, cb) = position(a), position(b)
    route = [a]
    while (r, c) != (rb, cb):
        r += (rb > r) - (rb < r)
        c += (cb > c) - (cb < c)
        route.append(planet_at(r, c))
    return route


def home(seat: int) -> int:
    """Home planet of a seat (GX-1)."""
    if seat not in HOMES:
        raise ValueError(f"not a seat (1 or 2): {seat!r}")
    return HOMES[seat]


def mirror(planet: int) -> int:
    """The planet in point symmetry (k <-> 17 - k), which has the same parameters (GX-4)."""
    return PLANETS + 1 - _check(planet)
