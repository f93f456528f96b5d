"""Galaxy for a learner (docs/rl.md, "Galaxy"): per-planet and per-fleet features, and per-planet orders.

Observation, a Dict of float32 arrays (counts clipped to COUNT_CAP):
- `planets` (16 x len(PLANET_FEATURES)): row i is planet i + 1, as the seat knows it now
  (its own planets always, foreign ones only through this turn's probe intel, GX-19);
- `fleets` (max_fleets x len(FLEET_FEATURES)): the seat's fleets in flight, padded with zeros;
- `game` (len(GAME_FEATURES)): the phase (scout, command or end), turn, seat, probes, planet counts.

Action, MultiDiscrete of shape (16, 2): row i is planet i + 1's [target, bucket]; target 0 is
"nothing", 1..16 a planet. Only the seat's own planets' rows are read. In the scout step each
row is that planet's probe (GX-7); in the command step it sends FRACTIONS[bucket] of the
planet's battleships and of its cruisers (rounded up) to the target.
"""

from __future__ import annotations

import functools
import math
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from armada.api import Session
from armada.games.galaxy.geometry import PLANET_IDS, coords
from armada.rl.codec import Codec

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
_PLANET_VALUES = PLANETS * len(PLANET_FEATURES)


@functools.cache
def _packer(count: int) -> struct.Struct:
    """Packs `count` numbers as float32 (as numpy rounds them)."""
    return struct.Struct(f"={count}f")


#: Zeros to pad the fleets with (a list: `values +=` takes a slice of it fast).
_ZEROS: list[float] = []


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
    #: The planets' numbers before clipping, row after row.
    planet_values: list[float]
    planets: np.ndarray
    fleets: np.ndarray
    game: np.ndarray
    #: (id, battleships, cruisers) of the seat's own planets, by id: what `decode` reads.
    own: list[tuple[int, int, int]]


class GalaxyCodec(Codec):
    """Galaxy's encodings for one configuration."""

    game = "galaxy"

    def __init__(self, config: dict[str, Any], *, max_fleets: int = MAX_FLEETS) -> None:
        if isinstance(max_fleets, bool) or not isinstance(max_fleets, int) or max_fleets < 1:
            raise ValueError(f"max_fleets must be a positive integer, got {max_fleets!r}")
        self.max_fleets = max_fleets
        _ZEROS.extend([0.0] * max(0, max_fleets * len(FLEET_FEATURES) - len(_ZEROS)))
        self.max_turns = int(config["max_turns"])
        self.observation_space = spaces.Dict({
            "planets": spaces.Box(0.0, COUNT_CAP, (PLANETS, len(PLANET_FEATURES)), np.float32),
            "fleets": spaces.Box(0.0, COUNT_CAP, (max_fleets, len(FLEET_FEATURES)), np.float32),
            "game": spaces.Box(0.0, COUNT_CAP, (len(GAME_FEATURES),), np.float32),
        })
        self.action_space = spaces.MultiDiscrete(np.array([[PLANETS + 1, len(FRACTIONS)]] * PLANETS, dtype=np.int64))

    def encode(self, request: dict[str, Any] | None, memory: dict[str, Any]) -> dict[str, np.ndarray]:
        """Features of the seat's latest observation, with this turn's intel in the command step.

        The scout observation's arrays are built once (kept in `memory["encoded"]`); each call
        returns fresh copies with the step's intel and phase on top."""
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
            game[4] = self.max_turns
            return {"planets": np.zeros((PLANETS, len(PLANET_FEATURES)), np.float32),
                    "fleets": np.zeros((self.max_fleets, len(FLEET_FEATURES)), np.float32), "game": game}
        encoded = self._encoded(obs, memory)
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

    def _encoded(self, obs: dict[str, Any], memory: dict[str, Any]) -> _Encoded:
        """The scout observation's arrays, built once per observation and kept in `memory`."""
        encoded = memory.get("encoded")
        if encoded is None or encoded.observation is not obs:
            encoded = memory["encoded"] = self._encode_observation(obs)
        return encoded  # type: ignore[no-any-return]

    def _encode_observation(self, obs: dict[str, Any]) -> _Encoded:
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
        flying = obs["fleets"][: self.max_fleets]
        for f in flying:
            values += (1.0, f["from"], f["to"], f["battleships"], f["cruisers"], f["turns_left"])
        values += _ZEROS[: (self.max_fleets - len(flying)) * len(FLEET_FEATURES)]  # the fleets' padding
        values += (0.0, 0.0, 0.0, obs["turn"], self.max_turns, seat, obs["probes"], len(own), enemy)
        flat = _float32(values)
        planets = flat[:_PLANET_VALUES].reshape(-1, len(PLANET_FEATURES))
        fleets = flat[_PLANET_VALUES:-len(GAME_FEATURES)].reshape(self.max_fleets, len(FLEET_FEATURES))
        game = flat[-len(GAME_FEATURES):]
        return _Encoded(obs, values[:_PLANET_VALUES], planets, fleets, game, sorted(own))

    def decode(self, action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
        """Probes (scout) or fleets (command) of the seat's own planets' rows; other rows are ignored."""
        rows = np.asarray(action, dtype=np.int64).reshape(PLANETS, 2).tolist()
        own = self._encoded(memory["observation"], memory).own
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
                fleets.append({"from": pid, "to": target, "battleships": sent_battleships,
                               "cruisers": sent_cruisers})
        return {"fleets": fleets}

    def progress(self, session: Session, seat: int) -> float:
        """Own planets minus the opponent's, over 16 (owners are public, GX-19)."""
        owners = [planet.owner for planet in session.driver.state.planets]
        return (owners.count(seat) - sum(1 for o in owners if o not in (0, seat))) / PLANETS
