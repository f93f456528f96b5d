"""Hand-built Galaxy messages following docs/games/galaxy-schema.md, for bot library tests."""

from __future__ import annotations

import copy
from typing import Any


def units(b: int = 0, c: int = 0, n: int = 0) -> dict[str, int]:
    return {"battleships": b, "cruisers": c, "launchers": n}


def planet(pid: int, owner: int, seat: int, garrison=None, production=None, hold=None) -> dict[str, Any]:
    """A planet entry; own planets get garrison/production/hold, others nulls."""
    row, col = divmod(pid - 1, 4)
    if owner == seat:
        garrison = garrison or units(5, 10, 10)
        production = production or units(2, 4, 4)
        hold = 0 if hold is None else hold
    else:
        garrison = production = hold = None
    return {"id": pid, "row": row, "col": col, "owner": owner, "garrison": garrison,
            "production": production, "hold": hold}


def observation(seat: int = 1, turn: int = 1, owners: dict[int, int] | None = None,
                garrisons: dict[int, dict[str, int]] | None = None, **extra: Any) -> dict[str, Any]:
    """A full observation: 16 planets, homes owned by their seats unless `owners` says otherwise."""
    owner_of = {1: 1, 16: 2}
    owner_of.update(owners or {})
    garrisons = garrisons or {}
    planets = [planet(pid, owner_of.get(pid, 0), seat, garrisons.get(pid)) for pid in range(1, 17)]
    obs = {
        "turn": turn,
        "max_turns": 200,
        "seat": seat,
        "probes": sum(1 for p in planets if p["owner"] == seat),
        "planets": planets,
        "fleets": [],
        "battles": [],
        "warnings": [],
    }
    obs.update(extra)
    return obs


def scout_request(obs: dict[str, Any], rid: int = 1) -> dict[str, Any]:
    return {"type": "scout", "id": rid, "turn": obs["turn"], "bank_ms": 10000, "observation": copy.deepcopy(obs)}


def command_request(turn: int, intel=None, warnings=None, rid: int = 2) -> dict[str, Any]:
    return {"type": "command", "id": rid, "turn": turn, "bank_ms": 10000,
            "intel": intel or [], "warnings": warnings or []}


#: The observation of the schema doc's example, richer than a first turn.
RICH = observation(
    seat=1,
    turn=7,
    owners={6: 1, 11: 2},
    garrisons={6: units(0, 2, 0)},
    fleets=[
        {"id": 12, "from": 1, "to": 12, "battleships": 2, "cruisers": 0, "launched": 5, "arrives": 10,
         "turns_left": 4},
        {"id": 13, "from": 6, "to": 12, "battleships": 0, "cruisers": 3, "launched": 7, "arrives": 8,
         "turns_left": 2},
        {"id": 14, "from": 1, "to": 7, "battleships": 0, "cruisers": 1, "launched": 7, "arrives": 7,
         "turns_left": 1},
    ],
    battles=[
        {"turn": 6, "planet": 6,
         "sides": [
             {"owner": 1, "role": "attacker", "before": units(0, 6, 0), "after": units(0, 2, 0)},
             {"owner": 0, "role": "defender", "before": units(0, 0, 8), "after": units(0, 0, 0)},
         ],
         "winner": 1, "new_owner": 1},
    ],
    warnings=["fleet order 2 dropped: planet 5 is not yours"],
)
