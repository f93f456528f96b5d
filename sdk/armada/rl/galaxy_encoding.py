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

import functools
import math
import struct
from dataclasses import dataclass
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
_PLANET_VALUES = PLANETS * len(PLANET_FEATURES)


@functools.cache
def _packer(count: int) -> struct.Struct:
    """Packs `count` numbers as float32 (as numpy rounds them)."""
    return struct.Struct(f"={count}f")


#: Zeros to pad the fleets with (a list: `values +=` takes a slice of it fast).
_ZEROS: list[float] = [0.0] * (4096 * len(FLEET_FEATURES))


def _float32(values: list[float]) -> np.ndarray:
    """`values` as a float32 array, each clipped to COUNT_CAP."""
    return np.minimum(np.frombuffer(_packer(len(values)).pack(*values), np.float32), COUNT_CAP)


_ROWCOL = [tuple(float(c) for c in coords(pid)) for pid in PLANET_IDS]
#: _PLANET_ROWS[seat][owner][i]: the row of planet i + 1 when `owner` holds it and it is not the seat's.
_PLANET_ROWS = [[[(0.0, float(owner not in (0, seat)), float(owner == 0), *(0.0,) * 9, *_ROWCOL[i])
                  for i in range(PLANETS)] for owner in range(3)] for seat in range(3)]


@dataclass(frozen=True)
class _Encoded:
    """What a seat's scout observation encodes to, before a step's intel and phase (kept in its memory)."""

    observation: dict[str, Any]
    max_fleets: int
    #: The planets' numbers before clipping, row after row.
    planet_values: list[float]
    planets: np.ndarray
    fleets: np.ndarray
    game: np.ndarray
    #: (id, battleships, cruisers) of the seat's own planets, by id: what `decode` reads.
    own: list[tuple[int, int, int]]


def encode(request: dict[str, Any] | None, memory: dict[str, Any], *, max_turns: int,
           max_fleets: int = MAX_FLEETS) -> dict[str, np.ndarray]:
    """Features of the seat's latest observation, with this turn's intel in the command step.

    `memory` is the seat's own dict, kept across its requests (the command request builds on
    the scout request's observation); `request` None is the end of the game. The scout
    observation's arrays are built once (kept in `memory["encoded"]`); each call returns fresh
    copies with the step's intel and phase on top."""
    kind = "end" if request is None else str(request.get("type"))
    if kind == "scout":
        assert request is not None
        memory["observation"] = request["observation"]
        memory["intel"] = []
    elif kind == "command":
        assert request is not None
        memory["intel"] = list(request.get("intel", []))
    phase = GAME_FEATURES.index(kind)
    obs = memory.get("observation")
    if obs is None:
        game = np.zeros(len(GAME_FEATURES), np.float32)
        game[phase] = 1.0
        game[4] = max_turns
        return {"planets": np.zeros((PLANETS, len(PLANET_FEATURES)), np.float32),
                "fleets": np.zeros((max_fleets, len(FLEET_FEATURES)), np.float32), "game": game}
    encoded = _encoded(obs, memory, max_turns, max_fleets)
    intel = memory.get("intel")
    if intel:  # the scout step's planet values with the intel's rows written over them
        values = encoded.planet_values.copy()
        for report in intel:
            garrison, production = report["garrison"], report["production"]
            at = (report["planet"] - 1) * len(PLANET_FEATURES)
            values[at + 3:at + 10] = (1.0, garrison["battleships"], garrison["cruisers"], garrison["launchers"],
                                      production["battleships"], production["cruisers"], production["launchers"])
            values[at + 11] = 1.0
        planets = _float32(values).reshape(PLANETS, len(PLANET_FEATURES))
    else:
        planets = encoded.planets.copy()
    game = encoded.game.copy()
    game[phase] = 1.0
    return {"planets": planets, "fleets": encoded.fleets.copy(), "game": game}


def _encoded(obs: dict[str, Any], memory: dict[str, Any], max_turns: int, max_fleets: int) -> _Encoded:
    """The scout observation's arrays, built once per observation and kept in `memory`."""
    encoded = memory.get("encoded")
    if encoded is None or encoded.observation is not obs or encoded.max_fleets != max_fleets:
        encoded = memory["encoded"] = _encode_observation(obs, max_turns, max_fleets)
    return encoded  # type: ignore[no-any-return]


def _encode_observation(obs: dict[str, Any], max_turns: int, max_fleets: int) -> _Encoded:
    """The planets (without intel), fleets and game arrays (without the phase) of a scout observation.

    Built as one flat list of numbers, made one float32 array (struct packs it faster than numpy
    reads a list), then cut into the three."""
    seat = obs["seat"]
    rows = _PLANET_ROWS[seat]
    values: list[float] = []
    own: list[tuple[int, int, int]] = []
    enemy = 0
    for i, planet in enumerate(obs["planets"]):
        owner = planet["owner"]
        if owner == seat:
            garrison, production = planet["garrison"], planet["production"]
            own.append((planet["id"], garrison["battleships"], garrison["cruisers"]))
            values += (1.0, 0.0, 0.0, 1.0, garrison["battleships"], garrison["cruisers"], garrison["launchers"],
                       production["battleships"], production["cruisers"], production["launchers"],
                       planet["hold"], 0.0, *_ROWCOL[i])
        else:
            values += rows[owner][i]
            if owner:
                enemy += 1
    flying = obs["fleets"][:max_fleets]
    for f in flying:
        values += (1.0, f["from"], f["to"], f["battleships"], f["cruisers"], f["turns_left"])
    padding = (max_fleets - len(flying)) * len(FLEET_FEATURES)
    values += _ZEROS[:padding] if padding <= len(_ZEROS) else [0.0] * padding  # the fleets' padding
    values += (0.0, 0.0, 0.0, obs["turn"], max_turns, seat, obs["probes"], len(own), enemy)
    flat_values = _float32(values)
    planets = flat_values[:_PLANET_VALUES].reshape(-1, len(PLANET_FEATURES))
    fleets = flat_values[_PLANET_VALUES:-len(GAME_FEATURES)].reshape(max_fleets, len(FLEET_FEATURES))
    game = flat_values[-len(GAME_FEATURES):]
    return _Encoded(obs, max_fleets, values[:_PLANET_VALUES], planets, fleets, game, sorted(own))


def flat(observation: dict[str, np.ndarray]) -> np.ndarray:
    """The observation as one float32 vector: planets, then fleets, then game, row by row."""
    return np.concatenate([observation["planets"].reshape(-1), observation["fleets"].reshape(-1),
                           observation["game"].reshape(-1)]).astype(np.float32)


def decode(action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
    """Probes (scout) or fleets (command) of the seat's own planets' rows; other rows are ignored."""
    rows = np.asarray(action, dtype=np.int64).reshape(PLANETS, 2).tolist()
    obs = memory["observation"]
    encoded = memory.get("encoded")
    if encoded is not None and encoded.observation is obs:
        own = encoded.own
    else:  # not encoded by `encode` (a caller's own memory): read the observation
        own = sorted((p["id"], p["garrison"]["battleships"], p["garrison"]["cruisers"])
                     for p in obs["planets"] if p["owner"] == obs["seat"])
    if request["type"] == "scout":
        mine = {pid for pid, _battleships, _cruisers in own}
        probes: list[int] = []
        for pid, _battleships, _cruisers in own:
            target = rows[pid - 1][0]
            if 1 <= target <= PLANETS and target not in mine and target not in probes:
                probes.append(target)
        return {"probes": probes}
    fleets = []
    for pid, battleships, cruisers in own:
        target, bucket = rows[pid - 1]
        if not 1 <= target <= PLANETS or target == pid:
            continue
        share = FRACTIONS[min(max(bucket, 0), len(FRACTIONS) - 1)]
        sent_battleships, sent_cruisers = math.ceil(battleships * share), math.ceil(cruisers * share)
        if sent_battleships + sent_cruisers:
            fleets.append({"from": pid, "to": target, "battleships": sent_battleships, "cruisers": sent_cruisers})
    return {"fleets": fleets}


def action_of(reply: dict[str, Any], request: dict[str, Any], memory: dict[str, Any]) -> np.ndarray:
    """The (16, 2) action closest to `reply` (call after `encode` of the same request).

    Scout: the valid probes in order, one per own planet in id order (as `decode` reads them).
    Command: per own planet its largest fleet's target, and the bucket whose fleet (as `decode`
    rounds each kind up) is nearest the one it sent; a second fleet from one planet is more than a
    row can say. Whatever is not a valid order (a foreign planet's fleet, a malformed entry) is left out."""
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
    largest: dict[int, tuple[int, int, int, int]] = {}
    for fleet in fleets if isinstance(fleets, list) else []:
        if not isinstance(fleet, dict) or fleet.get("from") not in mine or not _planet(fleet.get("to")):
            continue
        battleships, cruisers = _count(fleet.get("battleships")), _count(fleet.get("cruisers"))
        if fleet["to"] != fleet["from"] and battleships + cruisers > largest.get(fleet["from"], (0,))[0]:
            largest[fleet["from"]] = (battleships + cruisers, fleet["to"], battleships, cruisers)
    for pid, (_ships, target, battleships, cruisers) in largest.items():
        rows[pid - 1] = (target, _bucket(mine[pid]["garrison"], battleships, cruisers))
    return rows


def _bucket(garrison: dict[str, Any], battleships: int, cruisers: int) -> int:
    """The bucket whose fleet (as `decode` makes it: each kind's share rounded up) is nearest the
    one sent, counting ships; of equally near ones the smallest share. A planet without ships: 100%."""
    home_battleships, home_cruisers = garrison["battleships"], garrison["cruisers"]
    if not home_battleships + home_cruisers:
        return len(FRACTIONS) - 1
    return min(range(len(FRACTIONS)), key=lambda bucket: (
        abs(math.ceil(home_battleships * FRACTIONS[bucket]) - battleships)
        + abs(math.ceil(home_cruisers * FRACTIONS[bucket]) - cruisers)))


def _planet(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= PLANETS


def _count(value: Any) -> int:
    """A ship count as sent, 0 for anything that is not a positive integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
