"""The Galaxy engine object: the `Game` interface of armada.games.base over the modules of this package."""

from __future__ import annotations

from typing import Any

from armada.drawing import Board
from armada.games.base import SEATS, Fault, Request, Result, StepResult, forfeit_result
from armada.games.galaxy import config as config_mod
from armada.games.galaxy import persist, setup
from armada.games.galaxy.config import GalaxyConfig
from armada.games.galaxy.geometry import PLANET_IDS, SIZE
from armada.games.galaxy.observe import frame, intel, observation
from armada.games.galaxy.orders import ReplyShapeError, read_fleet_items, read_probes, replay_answer
from armada.games.galaxy.state import GalaxyState
from armada.games.galaxy.turn import command_phase

#: The board bots draw on (`Galaxy.drawing_board`).
GALAXY_BOARD = Board(frozenset(PLANET_IDS), (-0.5, SIZE - 0.5), (-0.5, SIZE - 0.5))


class Galaxy:
    """Galaxy (docs/games/galaxy.md, GX-1..GX-23): each turn is a "scout" step, then a "command" step."""

    slug = "galaxy"
    engine_version = "2"
    turns_label = "turns"

    def parse_config(self, raw: dict[str, Any] | None) -> GalaxyConfig:
        return config_mod.parse_config(raw)

    def config_to_dict(self, config: GalaxyConfig) -> dict[str, Any]:
        return config_mod.config_to_dict(config)

    def initial_state(self, seed: int, config: GalaxyConfig) -> GalaxyState:
        return setup.initial_state(seed, config)

    def requests(self, state: GalaxyState) -> dict[int, Request]:
        if state.phase == "scout":
            return {s: Request("scout", {"turn": state.turn, "observation": observation(state, s)}) for s in SEATS}
        if state.phase == "command":
            return {
                s: Request(
                    "command",
                    {"turn": state.turn, "intel": list(state.intel[s]), "warnings": list(state.probe_warnings[s])},
                )
                for s in SEATS
            }
        return {}

    def step(self, state: GalaxyState, answers: dict[int, dict[str, Any]]) -> StepResult:
        if state.phase == "over":
            raise ValueError("galaxy: the game is over; no more steps")
        missing = [s for s in SEATS if s not in answers]
        if missing:
            raise ValueError(f"galaxy: step needs an answer from every seat, missing seat {missing[0]}")
        if state.phase == "scout":
            return self._scout(state, answers)
        return self._command(state, answers)

    def _scout(self, state: GalaxyState, answers: dict[int, dict[str, Any]]) -> StepResult:
        """GX-8, GX-9: read probe targets, write each seat's intel for the command request."""
        owners = [p.owner for p in state.planets]  # one probe per planet owned (GX-7): owners.count(seat)
        faults: dict[int, Fault] = {}
        events: list[dict[str, Any]] = []
        for seat in SEATS:
            try:
                targets, warnings = read_probes(answers[seat], owners, seat, owners.count(seat))
            except ReplyShapeError as exc:
                faults[seat] = Fault("protocol", f"scout reply: {exc}")
                targets, warnings = [], []
            state.probes[seat] = targets
            state.intel[seat] = [intel(state, t) for t in targets]
            state.probe_warnings[seat] = warnings
            if seat not in faults:
                events.append(
                    {
                        "type": "probes",
                        "seat": seat,
                        "targets": targets,
                        "intel": state.intel[seat],
                        "warnings": warnings,
                    }
                )
        if faults:
            return self._forfeit(state, faults, events)
        state.phase = "command"
        return StepResult(state, events)

    def _command(self, state: GalaxyState, answers: dict[int, dict[str, Any]]) -> StepResult:
        """GX-10..GX-21: launches, arrivals, battles, production, growth, end of game."""
        orders: dict[int, list[dict[str, Any]]] = {}
        faults: dict[int, Fault] = {}
        for seat in SEATS:
            try:
                orders[seat] = read_fleet_items(answers[seat])
            except ReplyShapeError as exc:
                faults[seat] = Fault("protocol", f"command reply: {exc}")
        if faults:
            return self._forfeit(state, faults, [])
        return StepResult(state, command_phase(state, orders))

    def _forfeit(self, state: GalaxyState, faults: dict[int, Fault], events: list[dict[str, Any]]) -> StepResult:
        """A wrong reply shape disqualifies its seat (GX-22); the game ends here."""
        for seat, fault in sorted(faults.items()):
            state.faults[seat] = (fault.status, fault.detail)
            events.append({"type": "fault", "seat": seat, "status": fault.status, "detail": fault.detail})
        state.result = forfeit_result(faults, state.turn - 1)  # D-R-1: the faulty turn is not completed
        state.phase = "over"
        events.append({"type": "game_over", "result": state.result.to_dict()})
        return StepResult(state, events, faults)

    def replay_answer(self, phase: str, answer: dict[str, Any]) -> dict[str, Any]:
        """The part of a reply kept in the replay (bounded; replays to the same states)."""
        return replay_answer(phase, answer)

    def result(self, state: GalaxyState) -> Result | None:
        return state.result

    def drawing_board(self) -> Board:
        """What bots draw on (armada.drawing): planets 1..16, and `[x, y]` with x the column and y the
        row (0-based, planet 1 at [0, 0], planet 16 at [3, 3]), half a cell beyond the grid at most."""
        return GALAXY_BOARD

    def frame(self, state: GalaxyState) -> dict[str, Any] | None:
        """The full board after a command step (and at the start); None after a scout step."""
        if state.phase == "command":
            return None
        return frame(state)

    def dump_state(self, state: GalaxyState) -> dict[str, Any]:
        return persist.dump_state(state)

    def load_state(self, data: dict[str, Any]) -> GalaxyState:
        return persist.load_state(data)


GALAXY = Galaxy()
