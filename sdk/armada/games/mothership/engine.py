"""The Mothership Down engine object (`MOTHERSHIP`): one step in which both seats send orders (MD-11),
then the whole battle is fought (MD-4..MD-8); invalid orders are faults (MD-12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from armada.drawing import Board
from armada.games.base import SEATS, STATUSES, Fault, Request, Result, StepResult, forfeit_result
from armada.games.mothership import config as config_module
from armada.games.mothership.battle import BattleResult, simulate
from armada.games.mothership.config import FIGHTERS, MothershipConfig
from armada.games.mothership.orders import OrdersError, RaceOrders, parse_orders


@dataclass
class MothershipState:
    """A match: its config and seed, and once the orders are in, each seat's orders or fault and the battle."""

    config: MothershipConfig
    seed: int
    done: bool = False
    orders: dict[int, RaceOrders] = field(default_factory=dict)
    faults: dict[int, Fault] = field(default_factory=dict)
    battle: BattleResult | None = None
    rounds: list[dict[str, Any]] = field(default_factory=list)


#: The board bots draw on (`MothershipGame.drawing_board`): each seat's mothership
#: (`mothership-S`) and fighters (`fighter-S-P`, P the position 1..5), and `[x, y]` in the unit
#: square (x from seat 1's side, 0, to seat 2's, 1; y from the top, 0, to the bottom, 1).
MOTHERSHIP_BOARD = Board(
    frozenset([f"mothership-{s}" for s in SEATS] + [f"fighter-{s}-{p}" for s in SEATS for p in range(1, FIGHTERS + 1)]),
    (0.0, 1.0), (0.0, 1.0))


#: The fields of a state dump (`dump_state`), which has no `format` field (Galaxy's says `galaxy-state`).
STATE_FIELDS = ("config", "seed", "done", "orders", "faults")


def _seat_key(seat: int) -> str:
    return str(seat)


class MothershipGame:
    """Implements `armada.games.base.Game` for Mothership Down."""

    slug = "mothership"
    engine_version = "2"
    turns_label = "rounds"

    def parse_config(self, raw: dict[str, Any] | None) -> MothershipConfig:
        return config_module.parse_config(raw)

    def config_to_dict(self, config: MothershipConfig) -> dict[str, Any]:
        return config_module.config_to_dict(config)

    def initial_state(self, seed: int, config: MothershipConfig) -> MothershipState:
        """The state before the orders request (the game uses no randomness; the seed is only kept)."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        return MothershipState(config=config_module.parse_config(config), seed=seed)

    def requests(self, state: MothershipState) -> dict[int, Request]:
        """Both seats are asked for their orders once; nothing after that."""
        if state.done:
            return {}
        return {seat: Request("orders", {}) for seat in SEATS}

    def step(self, state: MothershipState, answers: dict[int, dict[str, Any]]) -> StepResult:
        """Check both seats' orders; if both are valid, fight the battle and record one event per round."""
        if state.done:
            raise ValueError("the match is over: Mothership Down has a single step")
        orders: dict[int, RaceOrders] = {}
        faults: dict[int, Fault] = {}
        for seat in SEATS:
            if seat not in answers:
                faults[seat] = Fault("protocol", "no reply to the orders request")
                continue
            try:
                orders[seat] = parse_orders(answers[seat], state.config)
            except OrdersError as exc:
                faults[seat] = Fault("invalid", str(exc))
        _finish(state, orders, faults)
        return StepResult(state=state, events=list(state.rounds), faults=dict(faults))

    def result(self, state: MothershipState) -> Result | None:
        """None until the orders are in; then forfeit (MD-12) or the battle's result (MD-8)."""
        if not state.done:
            return None
        if state.faults:
            return forfeit_result(state.faults, 0)
        assert state.battle is not None
        b = state.battle
        scores = {
            "damage_taken": {_seat_key(s): b.damage_taken[s - 1] for s in SEATS},
            "mothership_left": {_seat_key(s): b.mothership_left[s - 1] for s in SEATS},
        }
        return Result(winner=b.winner, outcome=b.outcome, turns=b.rounds, scores=scores)

    def drawing_board(self) -> Board:
        """What bots draw on (armada.drawing): the ships by id and the unit square."""
        return MOTHERSHIP_BOARD

    def frame(self, state: MothershipState) -> dict[str, Any] | None:
        """After the orders: each side's orders (the start boards) and its board after the last round."""
        if not state.done:
            return None
        last = state.rounds[-1]["sides"] if state.rounds else None
        sides = []
        for seat in SEATS:
            race = state.orders.get(seat)
            board = None
            if race is not None:
                board = (
                    {"mothership": last[seat - 1]["mothership"], "fighters": last[seat - 1]["fighters"]}
                    if last
                    else {
                        "mothership": race.mothership,
                        "fighters": [{"attack": f.attack, "defence": f.defence} for f in race.fighters],
                    }
                )
            sides.append({"seat": seat, "orders": race.to_dict() if race else None, "board": board})
        return {"round": len(state.rounds), "sides": sides}

    def dump_state(self, state: MothershipState) -> dict[str, Any]:
        """Config, seed and each seat's orders or fault; the battle is recomputed on load."""
        return {
            "config": self.config_to_dict(state.config),
            "seed": state.seed,
            "done": state.done,
            "orders": {_seat_key(s): o.to_dict() for s, o in sorted(state.orders.items())},
            "faults": {_seat_key(s): {"status": f.status, "detail": f.detail} for s, f in sorted(state.faults.items())},
        }

    def load_state(self, data: dict[str, Any]) -> MothershipState:
        """Inverse of dump_state; ValueError with a clear message on bad data."""
        if not isinstance(data, dict):
            raise ValueError(f"mothership state must be an object, got {type(data).__name__}")
        missing = [k for k in STATE_FIELDS if k not in data]
        if missing:
            raise ValueError(f"mothership state: missing {', '.join(missing)}")
        state = self.initial_state(data["seed"], self.parse_config(data["config"]))
        if not isinstance(data["done"], bool):
            raise ValueError("mothership state: done must be true or false")
        if not data["done"]:
            if data["orders"] or data["faults"]:
                raise ValueError("mothership state: orders or faults recorded before the step")
            return state
        orders = {}
        faults = {}
        for name, table in (("orders", data["orders"]), ("faults", data["faults"])):
            if not isinstance(table, dict) or any(k not in ("1", "2") for k in table):
                raise ValueError(f"mothership state: {name} must be an object keyed by seat '1' / '2'")
        for key, raw in data["orders"].items():
            try:
                orders[int(key)] = parse_orders(raw, state.config)
            except OrdersError as exc:
                raise ValueError(f"mothership state: orders of seat {key}: {exc}") from exc
        for key, raw in data["faults"].items():
            if not isinstance(raw, dict) or raw.get("status") not in STATUSES or raw["status"] == "ok":
                raise ValueError(f"mothership state: fault of seat {key} needs a fault status from {STATUSES[1:]}")
            if not isinstance(raw.get("detail"), str):
                raise ValueError(f"mothership state: fault of seat {key} needs a string detail")
            faults[int(key)] = Fault(raw["status"], raw["detail"])
        if set(orders) & set(faults) or len(orders) + len(faults) != len(SEATS):
            raise ValueError("mothership state: each seat needs exactly one of orders or fault once done")
        _finish(state, orders, faults)
        return state


def _finish(state: MothershipState, orders: dict[int, RaceOrders], faults: dict[int, Fault]) -> None:
    """Record the orders and faults; fight the battle when there is no fault."""
    state.orders = orders
    state.faults = faults
    state.done = True
    if not faults:
        state.battle, state.rounds = simulate(orders[1], orders[2], state.config)


#: The engine object the registry hands out.
MOTHERSHIP = MothershipGame()
