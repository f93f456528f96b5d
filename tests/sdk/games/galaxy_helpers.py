"""Shared helpers for the Galaxy engine tests: build positions, play turns with given answers."""

from __future__ import annotations

from typing import Any

from armada.games.base import Result, StepResult
from armada.games.galaxy import GALAXY
from armada.games.galaxy.state import GalaxyState


def new_state(seed: int = 1, **config: Any) -> GalaxyState:
    """A fresh game; keyword arguments override configuration keys."""
    return GALAXY.initial_state(seed, GALAXY.parse_config(config or None))


def put(state: GalaxyState, pid: int, owner: int, b: int = 0, c: int = 0, n: int = 0, hold: int = 0) -> None:
    """Set a planet's owner and contents directly (test setups)."""
    p = state.planet(pid)
    p.owner, p.battleships, p.cruisers, p.launchers, p.hold = owner, b, c, n, hold


def clear_board(state: GalaxyState) -> None:
    """Every neutral planet is emptied (homes keep their start units): a quiet board for scenarios."""
    for p in state.planets:
        if not p.owner:
            p.launchers = 0


def fleet(origin: int, target: int, b: int = 0, c: int = 0) -> dict[str, int]:
    return {"from": origin, "to": target, "battleships": b, "cruisers": c}


def turn(
    state: GalaxyState,
    fleets: dict[int, list[dict[str, Any]]] | None = None,
    probes: dict[int, list[Any]] | None = None,
) -> tuple[StepResult, StepResult]:
    """Play one whole turn (scout then command) with the given answers; returns both step results."""
    assert state.phase == "scout", state.phase
    probes = probes or {}
    fleets = fleets or {}
    scout = GALAXY.step(state, {s: {"probes": probes.get(s, [])} for s in (1, 2)})
    if state.phase != "command":
        return scout, StepResult(state)
    command = GALAXY.step(state, {s: {"fleets": fleets.get(s, [])} for s in (1, 2)})
    return scout, command


def events_of(result: StepResult, kind: str) -> list[dict[str, Any]]:
    return [e for e in result.events if e["type"] == kind]


def observe(state: GalaxyState, seat: int) -> dict[str, Any]:
    """The observation the seat gets in the next scout request."""
    return GALAXY.requests(state)[seat].payload["observation"]


def result_of(state: GalaxyState) -> Result:
    """The result of a finished game (fails the test when the game goes on)."""
    result = GALAXY.result(state)
    assert result is not None, "the game is not over"
    return result


def frame_of(state: GalaxyState) -> dict[str, Any]:
    """The frame after a command step (fails the test when there is none)."""
    frame = GALAXY.frame(state)
    assert frame is not None, "no frame after a scout step"
    return frame
