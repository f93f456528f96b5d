"""The 4x4 grid of GX-1, distances (GX-2), travel times (GX-6) and display paths (GX-11)."""

from __future__ import annotations

SIZE = 4
PLANETS = SIZE * SIZE
#: Planet ids 1..16.
PLANET_IDS: tuple[int, ...] = tuple(range(1, PLANETS + 1))
#: Home planet of each seat (GX-1).
HOME: dict[int, int] = {1: 1, 2: PLANETS}


def coords(planet: int) -> tuple[int, int]:
    """(row, col) of a planet, both 0-based; planets are numbered row by row."""
    return divmod(planet - 1, SIZE)


def planet_at(row: int, col: int) -> int:
    """The planet id at a grid point."""
    return row * SIZE + col + 1


def mirror(planet: int) -> int:
    """The point-symmetric partner of a planet (GX-4): k <-> 17 - k."""
    return PLANETS + 1 - planet


def distance(a: int, b: int) -> int:
    """Chebyshev distance between two planets (GX-2)."""
    ra, ca = coords(a)
    rb, cb = coords(b)
    return max(abs(ra - rb), abs(ca - cb))


#: DIST[a][b] for planet ids 1..16 (index 0 unused), for the hot path.
DIST: list[list[int]] = [[0] * (PLANETS + 1)] + [[0] + [distance(a, b) for b in PLANET_IDS] for a in PLANET_IDS]


def travel_time(a: int, b: int, has_battleship: bool) -> int:
    """Turns a fleet needs from a to b: distance, doubled when it carries a battleship (GX-6)."""
    return DIST[a][b] * (2 if has_battleship else 1)


def path(a: int, b: int) -> list[int]:
    """The grid points a fleet passes, diagonal steps first, then straight (GX-11), as planet ids."""
    r, c = coords(a)
    rb, cb = coords(b)
    points = [a]
    while (r, c) != (rb, cb):
        r += (rb > r) - (rb < r)
        c += (cb > c) - (cb < c)
        points.append(planet_at(r, c))
    return points


#: PATHS[a][b] = path(a, b) for every pair, and COORDS[p] = coords(p) (index 0 unused), for the hot path.
PATHS: list[list[list[int]]] = [[]] + [[[]] + [path(a, b) for b in PLANET_IDS] for a in PLANET_IDS]
COORDS: list[tuple[int, int]] = [(0, 0)] + [coords(p) for p in PLANET_IDS]


def position(a: int, b: int, units: float) -> tuple[float, float]:
    """The (row, col) point reached after travelling `units` along path(a, b), for drawing."""
    points = PATHS[a][b]
    last = len(points) - 1
    if units <= 0:
        r, c = COORDS[a]
        return (float(r), float(c))
    if units >= last:
        r, c = COORDS[b]
        return (float(r), float(c))
    step = int(units)
    frac = units - step
    r0, c0 = COORDS[points[step]]
    r1, c1 = COORDS[points[step + 1]]
    return (r0 + (r1 - r0) * frac, c0 + (c1 - c0) * frac)
