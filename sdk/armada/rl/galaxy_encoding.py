"""Galaxy's numbers for a learner, in numpy alone (docs/rl.md, "Galaxy"): what `GalaxyCodec` computes.

This file needs nothing but numpy and `armada.games.galaxy.geometry`, not gymnasium, so a bot
can carry a copy of it: the bot image has numpy and onnxruntime but not gymnasium, and
`armada new --starter imitation` copies this file into the bot folder as `encoding.py`, so the
bot encodes its requests exactly as its policy was trained on them (docs/imitation.md).

- `encode(request, memory, max_turns=..., max_fleets=...)`: the Dict observation of a request;
- `flat(observation)`: the same, as one float32 vector (`FLAT_SIZE` long with MAX_FLEETS);
- `decode(action, request, memory)`: a valid reply from a (16, 2) action;
- `action_of(reply, request, memory)`: the action that stands for a reply, as closely as the
  action space can say it (an imitation learner's label); `decode` of it gives the reply back
  for a reply the encoding can express.

Observation: `planets` (16 x len(PLANET_FEATURES)), row i is planet i + 1 as the seat knows it
now (its own planets always, foreign ones only through this turn's probe intel, GX-19);
`fleets` (max_fleets x len(FLEET_FEATURES)), the seat's fleets in flight padded with zeros;
`game` (len(GAME_FEATURES)): the phase, turn, seat, probes and planet counts. Counts are
clipped to COUNT_CAP.

Action, (16, 2): row i is planet i + 1's [target, bucket]; target 0 is "nothing", 1..16 a
planet. Only the seat's own planets' rows are read. In the scout step each row is that
planet's probe (GX-7); in the command step it sends FRACTIONS[bucket] of the planet's
battleships and of its cruisers (rounded up) to the target.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from armada.games.galaxy.geometry import PLANET_IDS, coords

PLANETS = len(PLANET_IDS)
PLANET_FEATURES = ("mine", "enemy", "neutral", "known", "battleships", "cruisers", "launchers",
                   "production_battleships", "production_cruisers", "production_launchers", "hold", "probed",
                   "row", "col")
FLEET_FEATURES = ("present", "from", "to", "battleships", "cruisers", "turns_left")
GAME_FEATURES = ("scout", "command", "end", "turn", "max_turns", "seat", "probes", "my_planets", "enemy_planets")
#: The share of a planet's ships a command row sends, by bucket.
FRACTIONS = (0.25, 0.5, 0.75, 1.0)
#: Fleets in flight the observation holds (the oldest first; more are left out).
MAX_FLEETS = 32
#: Every count in an observation is clipped to this (float32 holds it exactly).
COUNT_CAP = 1_000_000.0
#: The length of `flat(observation)` with MAX_FLEETS fleets.
FLAT_SIZE = PLANETS * len(PLANET_FEATURES) + MAX_FLEETS * len(FLEET_FEATURES) + len(GAME_FEATURES)
_UNITS = ("battleships", "cruisers", "launchers")
_COORDS = {pid: [float(c) for c in coords(pid)] for pid in PLANET_IDS}


def encode(request: dict[str, Any] | None, memory: dict[str, Any], *, max_turns: int,
           max_fleets: int = MAX_FLEETS) -> dict[str, np.ndarray]:
    """Features of the seat's latest observation, with this turn's intel in the command step.

    `memory` is the seat's own dict, kept across its requests (the command request builds on
    the scout request's observation); `request` None is the end of the game."""
    if request is not None and request.get("type") == "scout":
        memory["observation"] = request["observation"]
        memory["intel"] = []
    elif request is not None and request.get("type") == "command":
        memory["intel"] = list(request.get("intel", []))
    obs = memory.get("observation")
    game = [0.0] * len(GAME_FEATURES)
    game[GAME_FEATURES.index("end" if request is None else str(request.get("type")))] = 1.0
    game[4] = max_turns
    fleets = np.zeros((max_fleets, len(FLEET_FEATURES)), np.float32)
    if obs is None:
        return {"planets": np.zeros((PLANETS, len(PLANET_FEATURES)), np.float32), "fleets": fleets,
                "game": np.array(game, np.float32)}
    seat = obs["seat"]
    planets = []
    mine = enemy = 0
    for planet in obs["planets"]:  # built as lists, made an array once: several times faster
        owner = planet["owner"]
        row = [0.0] * len(PLANET_FEATURES)
        row[12:14] = _COORDS[planet["id"]]
        if owner == seat:
            mine += 1
            row[0] = 1.0
            _contents(row, planet["garrison"], planet["production"])
            row[10] = planet["hold"]
        elif owner:
            enemy += 1
            row[1] = 1.0
        else:
            row[2] = 1.0
        planets.append(row)
    for report in memory.get("intel", []):
        row = planets[report["planet"] - 1]
        _contents(row, report["garrison"], report["production"])
        row[11] = 1.0
    shown = obs["fleets"][:max_fleets]
    if shown:
        fleets[: len(shown)] = [(1.0, f["from"], f["to"], f["battleships"], f["cruisers"], f["turns_left"])
                                for f in shown]
    game[3] = obs["turn"]
    game[5:9] = (seat, obs["probes"], mine, enemy)
    return {"planets": np.minimum(np.array(planets, np.float32), COUNT_CAP),
            "fleets": np.minimum(fleets, COUNT_CAP), "game": np.minimum(np.array(game, np.float32), COUNT_CAP)}


def flat(observation: dict[str, np.ndarray]) -> np.ndarray:
    """The observation as one float32 vector: planets, then fleets, then game, row by row."""
    return np.concatenate([observation["planets"].reshape(-1), observation["fleets"].reshape(-1),
                           observation["game"].reshape(-1)]).astype(np.float32)


def decode(action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
    """Probes (scout) or fleets (command) of the seat's own planets' rows; other rows are ignored."""
    rows = np.asarray(action, dtype=np.int64).reshape(PLANETS, 2)
    obs = memory["observation"]
    seat = obs["seat"]
    mine = {p["id"]: p for p in obs["planets"] if p["owner"] == seat}
    if request["type"] == "scout":
        probes: list[int] = []
        for pid in sorted(mine):
            target = int(rows[pid - 1, 0])
            if 1 <= target <= PLANETS and target not in mine and target not in probes:
                probes.append(target)
        return {"probes": probes}
    fleets = []
    for pid, planet in sorted(mine.items()):
        target, bucket = int(rows[pid - 1, 0]), int(rows[pid - 1, 1])
        if not 1 <= target <= PLANETS or target == pid:
            continue
        share = FRACTIONS[min(max(bucket, 0), len(FRACTIONS) - 1)]
        garrison = planet["garrison"]
        battleships = math.ceil(garrison["battleships"] * share)
        cruisers = math.ceil(garrison["cruisers"] * share)
        if battleships + cruisers:
            fleets.append({"from": pid, "to": target, "battleships": battleships, "cruisers": cruisers})
    return {"fleets": fleets}


def action_of(reply: dict[str, Any], request: dict[str, Any], memory: dict[str, Any]) -> np.ndarray:
    """The (16, 2) action closest to `reply` (call after `encode` of the same request).

    Scout: the valid probes in order, one per own planet in id order (as `decode` reads them).
    Command: per own planet its largest fleet's target, and the bucket nearest the share of the
    planet's ships it sent; a second fleet from one planet is more than a row can say. Whatever
    is not a valid order (a foreign planet's fleet, a malformed entry) is left out."""
    rows = np.zeros((PLANETS, 2), np.int64)
    obs = memory.get("observation")
    if not isinstance(obs, dict) or not isinstance(reply, dict):
        return rows
    seat = obs["seat"]
    mine = {p["id"]: p for p in obs["planets"] if p["owner"] == seat}
    if request.get("type") == "scout":
        probes = reply.get("probes")
        wanted = [t for t in probes if _planet(t) and t not in mine] if isinstance(probes, list) else []
        for pid, target in zip(sorted(mine), dict.fromkeys(wanted), strict=False):
            rows[pid - 1, 0] = target
        return rows
    fleets = reply.get("fleets")
    largest: dict[int, tuple[int, int]] = {}
    for fleet in fleets if isinstance(fleets, list) else []:
        if not isinstance(fleet, dict) or fleet.get("from") not in mine or not _planet(fleet.get("to")):
            continue
        ships = _count(fleet.get("battleships")) + _count(fleet.get("cruisers"))
        if fleet["to"] != fleet["from"] and ships > largest.get(fleet["from"], (0, 0))[0]:
            largest[fleet["from"]] = (ships, fleet["to"])
    for pid, (ships, target) in largest.items():
        garrison = mine[pid]["garrison"]
        home = garrison["battleships"] + garrison["cruisers"]
        share = ships / home if home else 1.0
        rows[pid - 1] = (target, int(np.argmin([abs(share - f) for f in FRACTIONS])))
    return rows


def _planet(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= PLANETS


def _count(value: Any) -> int:
    """A ship count as sent, 0 for anything that is not a positive integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _contents(row: list[float], garrison: dict[str, int], production: dict[str, int]) -> None:
    """Fill a planet row's known contents and production."""
    row[3] = 1.0
    row[4:7] = [garrison[unit] for unit in _UNITS]
    row[7:10] = [production[unit] for unit in _UNITS]
