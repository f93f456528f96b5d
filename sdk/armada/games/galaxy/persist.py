"""The whole Galaxy state as JSON data and back (replays, `armada play --from-state`)."""

from __future__ import annotations

from typing import Any

from armada.games.base import ConfigError, Result
from armada.games.galaxy.config import config_to_dict, parse_config
from armada.games.galaxy.geometry import PLANET_IDS
from armada.games.galaxy.setup import NEUTRAL_PAIRS
from armada.games.galaxy.state import PHASES, Fleet, GalaxyState, Planet
from armada.games.rng import Rng

FORMAT = "galaxy-state"
VERSION = 1


def _seat_map(value: dict[int, Any]) -> dict[str, Any]:
    return {"1": value[1], "2": value[2]}


def dump_state(state: GalaxyState) -> dict[str, Any]:
    """Every field of the state as plain JSON data (lists, dicts with string keys, ints, strings)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "config": config_to_dict(state.config),
        "seed": state.seed,
        "rng": state.rng.dump(),
        "turn": state.turn,
        "phase": state.phase,
        "planets": [
            {
                "id": p.id,
                "owner": p.owner,
                "battleships": p.battleships,
                "cruisers": p.cruisers,
                "launchers": p.launchers,
                "hold": p.hold,
                "base": list(p.base),
                "pair": p.growth_pair,
            }
            for p in state.planets
        ],
        "fleets": [
            {
                "id": f.id,
                "owner": f.owner,
                "from": f.origin,
                "to": f.target,
                "battleships": f.battleships,
                "cruisers": f.cruisers,
                "launched": f.launched,
                "arrives": f.arrives,
            }
            for f in state.fleets
        ],
        "fleet_counts": _seat_map(state.fleet_counts),
        "probes": _seat_map({s: list(v) for s, v in state.probes.items()}),
        "intel": _seat_map({s: [dict(i) for i in v] for s, v in state.intel.items()}),
        "probe_warnings": _seat_map({s: list(v) for s, v in state.probe_warnings.items()}),
        "order_warnings": _seat_map({s: list(v) for s, v in state.order_warnings.items()}),
        "battles": [dict(b) for b in state.battles],
        "faults": {str(s): list(f) for s, f in sorted(state.faults.items())},
        "result": state.result.to_dict() if state.result is not None else None,
    }


class _Reader:
    """Typed access to JSON data with error messages that name the path."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise ValueError(f"galaxy state: {where or 'state'} must be an object, got {type(data).__name__}")
        self.data = data
        self.where = where

    def _name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise ValueError(f"galaxy state: {self._name(key)} is missing")
        return self.data[key]

    def integer(self, key: str, lo: int = 0, hi: int | None = None) -> int:
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
            bound = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
            raise ValueError(f"galaxy state: {self._name(key)} must be an integer {bound}, got {value!r}")
        return value

    def array(self, key: str) -> list[Any]:
        value = self.get(key)
        if not isinstance(value, list):
            raise ValueError(f"galaxy state: {self._name(key)} must be a list, got {type(value).__name__}")
        return value

    def seats(self, key: str) -> dict[int, list[Any]]:
        value = _Reader(self.get(key), self._name(key))
        return {1: value.array("1"), 2: value.array("2")}


def _planet(data: Any, index: int) -> Planet:
    r = _Reader(data, f"planets[{index}]")
    pid = r.integer("id", 1, len(PLANET_IDS))
    if pid != index + 1:
        raise ValueError(f"galaxy state: planets[{index}].id must be {index + 1}, got {pid}")
    base = r.array("base")
    if len(base) != 3 or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in base):
        raise ValueError(f"galaxy state: planets[{index}].base must be 3 non-negative integers, got {base!r}")
    return Planet(
        pid,
        r.integer("owner", 0, 2),
        r.integer("battleships"),
        r.integer("cruisers"),
        r.integer("launchers"),
        r.integer("hold"),
        (base[0], base[1], base[2]),
        r.integer("pair", -1, len(NEUTRAL_PAIRS) - 1),
    )


def _fleet(data: Any, index: int) -> Fleet:
    r = _Reader(data, f"fleets[{index}]")
    n = len(PLANET_IDS)
    fleet = Fleet(
        r.integer("id", 1),
        r.integer("owner", 1, 2),
        r.integer("from", 1, n),
        r.integer("to", 1, n),
        r.integer("battleships"),
        r.integer("cruisers"),
        r.integer("launched", 1),
        r.integer("arrives", 1),
    )
    if fleet.battleships + fleet.cruisers == 0 or fleet.origin == fleet.target:
        raise ValueError(f"galaxy state: fleets[{index}] is empty or goes nowhere")
    return fleet


def _result(data: Any) -> Result | None:
    if data is None:
        return None
    r = _Reader(data, "result")
    winner = r.get("winner")
    if winner not in (None, 1, 2) or isinstance(winner, bool):
        raise ValueError(f"galaxy state: result.winner must be 1, 2 or null, got {winner!r}")
    outcome = r.get("outcome")
    if not isinstance(outcome, str):
        raise ValueError("galaxy state: result.outcome must be a string")
    scores = r.get("scores")
    if not isinstance(scores, dict):
        raise ValueError("galaxy state: result.scores must be an object")
    return Result(winner, outcome, r.integer("turns"), scores)


def load_state(data: Any) -> GalaxyState:
    """Rebuild a state from dump_state output; ValueError naming the bad field on anything else."""
    r = _Reader(data, "")
    if r.get("format") != FORMAT or r.get("version") != VERSION:
        raise ValueError(
            f"galaxy state: expected format {FORMAT!r} version {VERSION}, "
            f"got {data.get('format')!r} version {data.get('version')!r}"
        )
    try:
        config = parse_config(r.get("config"))
    except ConfigError as exc:
        raise ValueError(f"galaxy state: config.{exc}") from exc
    seed = r.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"galaxy state: seed must be an integer, got {seed!r}")
    rng = Rng.load(r.get("rng"))
    phase = r.get("phase")
    if phase not in PHASES:
        raise ValueError(f"galaxy state: phase must be one of {', '.join(PHASES)}, got {phase!r}")
    planets_data = r.array("planets")
    if len(planets_data) != len(PLANET_IDS):
        raise ValueError(f"galaxy state: planets must hold {len(PLANET_IDS)} planets, got {len(planets_data)}")
    counts = _Reader(r.get("fleet_counts"), "fleet_counts")
    faults_data = _Reader(r.get("faults"), "faults").data
    faults: dict[int, tuple[str, str]] = {}
    for key, value in faults_data.items():
        if key not in ("1", "2") or not isinstance(value, list) or len(value) != 2:
            raise ValueError(f"galaxy state: faults.{key} must be a [status, detail] pair for seat 1 or 2")
        faults[int(key)] = (str(value[0]), str(value[1]))
    battles = r.array("battles")
    if any(not isinstance(b, dict) or not isinstance(b.get("seats"), list) for b in battles):
        raise ValueError("galaxy state: battles must be objects with a 'seats' list")
    state = GalaxyState(
        config=config,
        seed=seed,
        rng=rng,
        planets=[_planet(p, i) for i, p in enumerate(planets_data)],
        turn=r.integer("turn", 1, config.max_turns),
        phase=phase,
        fleets=[_fleet(f, i) for i, f in enumerate(r.array("fleets"))],
        fleet_counts={1: counts.integer("1"), 2: counts.integer("2")},
        probes=r.seats("probes"),
        intel=r.seats("intel"),
        probe_warnings=r.seats("probe_warnings"),
        order_warnings=r.seats("order_warnings"),
        battles=battles,
        faults=faults,
        result=_result(r.get("result")),
    )
    for f in state.fleets:
        if state.phase != "over" and f.arrives < state.turn:
            raise ValueError(f"galaxy state: fleet {f.id} was due in turn {f.arrives}, before turn {state.turn}")
    if len({f.id for f in state.fleets}) != len(state.fleets):
        raise ValueError("galaxy state: fleet ids must be unique")
    if (state.phase == "over") != (state.result is not None):
        raise ValueError("galaxy state: a result must be present exactly when phase is 'over'")
    return state
