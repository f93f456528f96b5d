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

import math
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
_UNITS = ("battleships", "cruisers", "launchers")
_COORDS = {pid: [float(c) for c in coords(pid)] for pid in PLANET_IDS}


class GalaxyCodec(Codec):
    """Galaxy's encodings for one configuration."""

    game = "galaxy"

    def __init__(self, config: dict[str, Any], *, max_fleets: int = MAX_FLEETS) -> None:
        if isinstance(max_fleets, bool) or not isinstance(max_fleets, int) or max_fleets < 1:
            raise ValueError(f"max_fleets must be a positive integer, got {max_fleets!r}")
        self.max_fleets = max_fleets
        self.max_turns = int(config["max_turns"])
        self.observation_space = spaces.Dict({
            "planets": spaces.Box(0.0, COUNT_CAP, (PLANETS, len(PLANET_FEATURES)), np.float32),
            "fleets": spaces.Box(0.0, COUNT_CAP, (max_fleets, len(FLEET_FEATURES)), np.float32),
            "game": spaces.Box(0.0, COUNT_CAP, (len(GAME_FEATURES),), np.float32),
        })
        self.action_space = spaces.MultiDiscrete(np.array([[PLANETS + 1, len(FRACTIONS)]] * PLANETS, dtype=np.int64))

    def encode(self, request: dict[str, Any] | None, memory: dict[str, Any]) -> dict[str, np.ndarray]:
        """Features of the seat's latest observation, with this turn's intel in the command step."""
        if request is not None and request.get("type") == "scout":
            memory["observation"] = request["observation"]
            memory["intel"] = []
        elif request is not None and request.get("type") == "command":
            memory["intel"] = list(request.get("intel", []))
        obs = memory.get("observation")
        game = [0.0] * len(GAME_FEATURES)
        game[GAME_FEATURES.index("end" if request is None else str(request.get("type")))] = 1.0
        game[4] = self.max_turns
        fleets = np.zeros((self.max_fleets, len(FLEET_FEATURES)), np.float32)
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
        shown = obs["fleets"][: self.max_fleets]
        if shown:
            fleets[: len(shown)] = [(1.0, f["from"], f["to"], f["battleships"], f["cruisers"], f["turns_left"])
                                    for f in shown]
        game[3] = obs["turn"]
        game[5:9] = (seat, obs["probes"], mine, enemy)
        return {"planets": np.minimum(np.array(planets, np.float32), COUNT_CAP),
                "fleets": np.minimum(fleets, COUNT_CAP), "game": np.minimum(np.array(game, np.float32), COUNT_CAP)}

    def decode(self, action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
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

    def progress(self, session: Session, seat: int) -> float:
        """Own planets minus the opponent's, over 16 (owners are public, GX-19)."""
        owners = [planet.owner for planet in session.driver.state.planets]
        return (owners.count(seat) - sum(1 for o in owners if o not in (0, seat))) / PLANETS


def _contents(row: list[float], garrison: dict[str, int], production: dict[str, int]) -> None:
    """Fill a planet row's known contents and production."""
    row[3] = 1.0
    row[4:7] = [garrison[unit] for unit in _UNITS]
    row[7:10] = [production[unit] for unit in _UNITS]
