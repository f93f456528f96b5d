"""What each seat is shown (GX-7, GX-9, GX-19) and the full frame a replay viewer draws.

These run for every request and every frame, so they are written for speed (the static parts of
a planet's record are built once at import), but every record is still a fresh dict: callers
may keep or change what they get.
"""

from __future__ import annotations

import functools
from typing import Any

from armada.games.galaxy.geometry import PATHS, PLANET_IDS, coords, position
from armada.games.galaxy.state import GalaxyState, Planet

#: The keys of a battle report a seat is shown (docs/games/galaxy-schema.md).
BATTLE_KEYS = ("turn", "planet", "sides", "winner", "new_owner")
_ROWCOL = [coords(pid) for pid in PLANET_IDS]
#: _SEEN[i][owner]: planet i + 1 with that owner as a seat sees it when the planet is not its own
#: (observations copy it; for the seat's own planets they fill in the hidden parts).
_SEEN: list[tuple[dict[str, Any], ...]] = [
    tuple(
        {"id": pid, "row": row, "col": col, "owner": owner, "garrison": None, "production": None, "hold": None}
        for owner in (0, 1, 2)
    )
    for pid, (row, col) in zip(PLANET_IDS, _ROWCOL, strict=True)
]


def _production(planet: Planet) -> dict[str, int]:
    """Production per turn now, as the schema's object: base + 2 x floor(hold / 5) when owned,
    the potential rate when neutral."""
    b, c, n = planet.base
    if planet.owner:
        bonus = 2 * (planet.hold // 5)
        return {"battleships": b + bonus, "cruisers": c + bonus, "launchers": n + bonus}
    return {"battleships": b, "cruisers": c, "launchers": n}


def observation(state: GalaxyState, seat: int) -> dict[str, Any]:
    """The scout request's observation: public owners, own planets and fleets, own battles (GX-19)."""
    planets = []
    owned = 0
    for p, seen in zip(state.planets, _SEEN, strict=True):
        owner = p.owner
        shown = seen[owner].copy()
        if owner == seat:
            owned += 1
            shown["garrison"] = {"battleships": p.battleships, "cruisers": p.cruisers, "launchers": p.launchers}
            shown["production"] = _production(p)
            shown["hold"] = p.hold
        planets.append(shown)
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
    battles = [  # the BATTLE_KEYS of the seat's battles, written out (faster than a dict comprehension)
        {
            "turn": b["turn"],
            "planet": b["planet"],
            "sides": b["sides"],
            "winner": b["winner"],
            "new_owner": b["new_owner"],
        }
        for b in state.battles
        if seat in b["seats"]
    ]
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
        "garrison": {"battleships": p.battleships, "cruisers": p.cruisers, "launchers": p.launchers},
        "production": _production(p),
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
