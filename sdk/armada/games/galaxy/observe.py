"""What each seat is shown (GX-7, GX-9, GX-19) and the full frame a replay viewer draws.

These run for every request and every frame, so they are written for speed: the static parts
of a planet's record are built once at import, and every record is a fresh dict (callers may
keep or change what they get).
"""

from __future__ import annotations

import functools
from typing import Any

from armada.games.galaxy.geometry import PATHS, PLANET_IDS, coords, position
from armada.games.galaxy.state import Fleet, GalaxyState, Planet

#: The keys of a battle report a seat is shown (docs/games/galaxy-schema.md).
BATTLE_KEYS = ("turn", "planet", "sides", "winner", "new_owner")
_ROWCOL = [coords(pid) for pid in PLANET_IDS]
#: _HIDDEN[i]: planet i + 1 as a seat sees a planet it does not own (copied, then "owner" is set).
_HIDDEN: list[dict[str, Any]] = [
    {"id": pid, "row": row, "col": col, "owner": 0, "garrison": None, "production": None, "hold": None}
    for pid, (row, col) in zip(PLANET_IDS, _ROWCOL, strict=True)
]


def rate(planet: Planet) -> tuple[int, int, int]:
    """Production per turn now: base + 2 x floor(hold / 5) when owned, the potential rate when neutral."""
    if not planet.owner:
        return planet.base
    bonus = 2 * (planet.hold // 5)
    b, c, n = planet.base
    return (b + bonus, c + bonus, n + bonus)


def _production(planet: Planet) -> dict[str, int]:
    """rate(planet) as the schema's object."""
    b, c, n = planet.base
    if planet.owner:
        bonus = 2 * (planet.hold // 5)
        return {"battleships": b + bonus, "cruisers": c + bonus, "launchers": n + bonus}
    return {"battleships": b, "cruisers": c, "launchers": n}


def probes_available(state: GalaxyState, seat: int) -> int:
    """One probe per planet owned (GX-7)."""
    return sum(1 for p in state.planets if p.owner == seat)


def _own_fleet(f: Fleet, turn: int) -> dict[str, Any]:
    return {
        "id": f.id,
        "from": f.origin,
        "to": f.target,
        "battleships": f.battleships,
        "cruisers": f.cruisers,
        "launched": f.launched,
        "arrives": f.arrives,
        "turns_left": f.arrives - turn + 1,
    }


def _shown_battle(b: dict[str, Any]) -> dict[str, Any]:
    """The BATTLE_KEYS of a battle event."""
    return {"turn": b["turn"], "planet": b["planet"], "sides": b["sides"], "winner": b["winner"], "new_owner": b["new_owner"]}


def observation(state: GalaxyState, seat: int) -> dict[str, Any]:
    """The scout request's observation: public owners, own planets and fleets, own battles (GX-19)."""
    planets = []
    owned = 0
    for p, hidden in zip(state.planets, _HIDDEN, strict=True):
        shown = hidden.copy()
        if p.owner == seat:
            owned += 1
            shown["owner"] = seat
            shown["garrison"] = {"battleships": p.battleships, "cruisers": p.cruisers, "launchers": p.launchers}
            shown["production"] = _production(p)
            shown["hold"] = p.hold
        else:
            shown["owner"] = p.owner
        planets.append(shown)
    turn = state.turn
    return {
        "turn": turn,
        "max_turns": state.config.max_turns,
        "seat": seat,
        "probes": owned,
        "planets": planets,
        "fleets": [_own_fleet(f, turn) for f in state.fleets if f.owner == seat],
        "battles": [_shown_battle(b) for b in state.battles if seat in b["seats"]],
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


def _drawn_fleet(f: Fleet) -> dict[str, Any]:
    """A fleet's frame record with "path" and "position" still to fill in (the rest never changes)."""
    return {
        "id": f.id,
        "owner": f.owner,
        "from": f.origin,
        "to": f.target,
        "battleships": f.battleships,
        "cruisers": f.cruisers,
        "launched": f.launched,
        "arrives": f.arrives,
        "path": None,
        "position": None,
    }


def frame(state: GalaxyState) -> dict[str, Any]:
    """Everything drawable after a turn: planets with contents, fleets with their path and position."""
    done = state.turn if state.phase == "over" else state.turn - 1
    count = [0, 0, 0]
    power = [0, 0, 0]
    planets = []
    for p, (row, col) in zip(state.planets, _ROWCOL, strict=True):
        owner = p.owner
        b, c, n = p.battleships, p.cruisers, p.launchers
        count[owner] += 1
        power[owner] += 4 * b + 2 * c + n
        planets.append(
            {
                "id": p.id,
                "row": row,
                "col": col,
                "owner": owner,
                "battleships": b,
                "cruisers": c,
                "launchers": n,
                "hold": p.hold,
                "production": _production(p),
            }
        )
    fleets = []
    for f in state.fleets:
        power[f.owner] += 4 * f.battleships + 2 * f.cruisers
        drawn = f.drawn
        if drawn is None:
            drawn = f.drawn = _drawn_fleet(f)
        shown = drawn.copy()
        shown["path"] = PATHS[f.origin][f.target].copy()
        shown["position"] = [*_position(f.origin, f.target, done - f.launched + 1, 2 if f.battleships else 1)]
        fleets.append(shown)
    return {
        "turn": done,
        "planets": planets,
        "fleets": fleets,
        "probes": {"1": list(state.probes[1]), "2": list(state.probes[2])},
        "planet_count": {"1": count[1], "2": count[2]},
        "mle": {"1": power[1], "2": power[2]},
        "result": state.result.to_dict() if state.result is not None else None,
    }
