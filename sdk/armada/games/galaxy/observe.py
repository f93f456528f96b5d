"""What each seat is shown (GX-7, GX-9, GX-19) and the full frame a replay viewer draws."""

from __future__ import annotations

import functools
from typing import Any

from armada.games.galaxy.geometry import PATHS, PLANET_IDS, coords, position
from armada.games.galaxy.state import GalaxyState, Planet

#: The keys of a battle report a seat is shown (docs/games/galaxy-schema.md).
BATTLE_KEYS = ("turn", "planet", "sides", "winner", "new_owner")
_ROWCOL = [coords(pid) for pid in PLANET_IDS]


def rate(planet: Planet) -> tuple[int, int, int]:
    """Production per turn now: base + 2 x floor(hold / 5) when owned, the potential rate when neutral."""
    if not planet.owner:
        return planet.base
    bonus = 2 * (planet.hold // 5)
    b, c, n = planet.base
    return (b + bonus, c + bonus, n + bonus)


def _units(b: int, c: int, n: int) -> dict[str, int]:
    return {"battleships": b, "cruisers": c, "launchers": n}


def probes_available(state: GalaxyState, seat: int) -> int:
    """One probe per planet owned (GX-7)."""
    return sum(1 for p in state.planets if p.owner == seat)


def observation(state: GalaxyState, seat: int) -> dict[str, Any]:
    """The scout request's observation: public owners, own planets and fleets, own battles (GX-19)."""
    planets = []
    owned = 0
    for p, (row, col) in zip(state.planets, _ROWCOL, strict=True):
        if p.owner == seat:
            owned += 1
            bonus = 2 * (p.hold // 5)
            b, c, n = p.base
            planets.append(
                {
                    "id": p.id,
                    "row": row,
                    "col": col,
                    "owner": seat,
                    "garrison": {"battleships": p.battleships, "cruisers": p.cruisers, "launchers": p.launchers},
                    "production": {"battleships": b + bonus, "cruisers": c + bonus, "launchers": n + bonus},
                    "hold": p.hold,
                }
            )
        else:
            planets.append(
                {
                    "id": p.id,
                    "row": row,
                    "col": col,
                    "owner": p.owner,
                    "garrison": None,
                    "production": None,
                    "hold": None,
                }
            )
    turn = state.turn
    fleets = [
        {
            "id": f.id,
            "from": f.origin,
            "to": f.target,
            "battleships": f.battleships,
            "cruisers": f.cruisers,
            "launched": f.launched,
            "arrives": f.arrives,
            "turns_left": f.arrives - turn + 1,
        }
        for f in state.fleets
        if f.owner == seat
    ]
    battles = [{k: b[k] for k in BATTLE_KEYS} for b in state.battles if seat in b["seats"]]
    return {
        "turn": turn,
        "max_turns": state.config.max_turns,
        "seat": seat,
        "probes": owned,
        "planets": planets,
        "fleets": fleets,
        "battles": battles,
        "warnings": list(state.order_warnings[seat]),
    }


def intel(state: GalaxyState, target: int) -> dict[str, Any]:
    """One probe report (GX-9): owner, contents and production rate of a planet, as it is now."""
    p = state.planets[target - 1]
    return {
        "planet": p.id,
        "owner": p.owner,
        "garrison": _units(p.battleships, p.cruisers, p.launchers),
        "production": _units(*rate(p)),
    }


@functools.cache
def _position(a: int, b: int, turns: int, slow: int) -> tuple[float, float]:
    """Where a fleet is after `turns` turns of travel at 1 unit per `slow` turns (GX-6, GX-11)."""
    return position(a, b, turns / slow)


def frame(state: GalaxyState) -> dict[str, Any]:
    """Everything drawable after a turn: planets with contents, fleets with their path and position."""
    done = state.turn if state.phase == "over" else state.turn - 1
    count = [0, 0, 0]
    power = [0, 0, 0]
    planets = []
    for p, (row, col) in zip(state.planets, _ROWCOL, strict=True):
        owner = p.owner
        count[owner] += 1
        power[owner] += 4 * p.battleships + 2 * p.cruisers + p.launchers
        bonus = 2 * (p.hold // 5) if owner else 0
        b, c, n = p.base
        planets.append(
            {
                "id": p.id,
                "row": row,
                "col": col,
                "owner": owner,
                "battleships": p.battleships,
                "cruisers": p.cruisers,
                "launchers": p.launchers,
                "hold": p.hold,
                "production": {"battleships": b + bonus, "cruisers": c + bonus, "launchers": n + bonus},
            }
        )
    fleets = []
    for f in state.fleets:
        power[f.owner] += 4 * f.battleships + 2 * f.cruisers
        fleets.append(
            {
                "id": f.id,
                "owner": f.owner,
                "from": f.origin,
                "to": f.target,
                "battleships": f.battleships,
                "cruisers": f.cruisers,
                "launched": f.launched,
                "arrives": f.arrives,
                "path": [*PATHS[f.origin][f.target]],
                "position": [*_position(f.origin, f.target, done - f.launched + 1, 2 if f.battleships else 1)],
            }
        )
    return {
        "turn": done,
        "planets": planets,
        "fleets": fleets,
        "probes": {"1": list(state.probes[1]), "2": list(state.probes[2])},
        "planet_count": {"1": count[1], "2": count[2]},
        "mle": {"1": power[1], "2": power[2]},
        "result": state.result.to_dict() if state.result is not None else None,
    }
