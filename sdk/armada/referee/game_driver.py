"""`GameDriver`: the engine side of a match, shared by `play_match` and `armada.Session`.

It holds the engine, the state and the replay being recorded; it says what each seat is
asked next (`requests`, `message`) and advances the game with the seats' answers
(`advance`), recording every step. Talking to bots (timing, framing, faults of the
connection) is the referee loop's business, not the driver's.
"""

from __future__ import annotations

from typing import Any

from armada.drawing import without_debug
from armada.games.base import Fault, Game, Request, Result, forfeit_result
from armada.replay import ReplayRecorder, plain

#: Request keys the referee sets itself; an engine payload cannot override them.
REFEREE_KEYS = frozenset({"type", "id", "bank_ms"})


def resolve_game(game: str | Game) -> Game:
    """An engine from its slug (through the registry), or the engine object itself."""
    if isinstance(game, str):
        from armada.games.registry import get_game

        return get_game(game)
    return game


class GameDriver:
    """One game from its seed and configuration (or a saved state) to its result."""

    def __init__(self, game: str | Game, seed: int, config: dict[str, Any] | None = None,
                 start_state: dict[str, Any] | None = None) -> None:
        """Raises ConfigError for a bad configuration, ValueError for a bad seed or state."""
        self.engine = resolve_game(game)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.seed = seed
        parsed = self.engine.parse_config(config)
        self.config = plain(self.engine.config_to_dict(parsed))
        recorded_start = plain(start_state) if start_state is not None else None
        self.state = (self.engine.load_state(start_state) if start_state is not None
                      else self.engine.initial_state(seed, parsed))
        self.recorder = ReplayRecorder(self.engine, seed, self.config, self.engine.frame(self.state), recorded_start)
        self.turns_done = 0  # D-R-1: turns completed before the current request

    def result(self) -> Result | None:
        """The engine's result once the game is over, else None."""
        return self.engine.result(self.state)

    def requests(self) -> dict[int, Request]:
        """What each seat is asked now; RuntimeError when an unfinished game asks nothing."""
        requests = self.engine.requests(self.state)
        if not requests:
            raise RuntimeError(f"{self.engine.slug} engine asks nothing but its game is not over")
        for request in requests.values():
            turn = request.payload.get("turn")
            if isinstance(turn, int) and not isinstance(turn, bool):
                self.turns_done = max(0, turn - 1)
        return requests

    @staticmethod
    def message(request: Request, request_id: int, bank_ms: int) -> dict[str, Any]:
        """The protocol message for one request (protocol.md, "Messages")."""
        game_fields = {k: v for k, v in request.payload.items() if k not in REFEREE_KEYS}
        return {"type": request.type, "id": request_id, **game_fields, "bank_ms": bank_ms}

    def advance(self, requests: dict[int, Request], answers: dict[int, dict[str, Any]]) -> dict[int, Fault]:
        """Play one step with every seat's answer (without id); returns the faults the engine found.

        A drawing (`debug`, armada.drawing) is no part of an answer: it is left out here too."""
        answers = {seat: without_debug(answer) for seat, answer in answers.items()}
        step = self.engine.step(self.state, answers)
        self.state = step.state
        phases = {number: request.type for number, request in requests.items()}
        turn = next(iter(requests.values())).payload.get("turn")
        self.recorder.add_step(phases, turn, answers, step, self.engine.frame(self.state))
        return dict(step.faults)

    def forfeit(self, faults: dict[int, Fault]) -> Result:
        """The result when seats are disqualified (MD-12, GX-22), counting completed turns (D-R-1)."""
        return forfeit_result(faults, self.turns_done)

    def finish(self, seats: list[dict[str, Any]], result: Result,
               timings: dict[str, Any] | None = None) -> dict[str, Any]:
        """The finished replay."""
        return self.recorder.finish(seats, result, timings)
