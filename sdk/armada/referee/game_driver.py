"""`GameDriver`: the engine side of a match, shared by `play_match` and `armada.Session`.

It holds the engine, the state and the replay being recorded; it says what each seat is
asked next (`requests`, `message`) and advances the game with the seats' answers
(`advance`), recording every step. Talking to bots (timing, framing, faults of the
connection) is the referee loop's business, not the driver's.

With `record=False` (what an RL environment asks for: steps as fast as the engine's) it keeps
a copy of each step's answers instead, and `recorder` records the replay only when it is read,
by playing those answers again from the start: the engines are deterministic (GX-23), so it is
the same replay, byte for byte.
"""

from __future__ import annotations

import copy
import functools
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
    if not hasattr(game, "parse_config"):  # e.g. a number: the registry's message, not an AttributeError later
        from armada.games.registry import GAMES, UnknownGame

        raise UnknownGame(f"unknown game {game!r}: give a game's name ({', '.join(sorted(GAMES))}) or its engine")
    return game


#: Values `copied` keeps as they are: immutable.
_ATOMS = frozenset({int, float, str, bool, type(None)})


def copied(value: Any) -> Any:
    """A deep copy of an answer, fast for JSON data (dicts, lists and tuples keep their types):
    what the driver plays again must be what it was given, whatever its giver does later."""
    kind = type(value)
    if kind is dict:
        return {key: item if type(item) in _ATOMS else copied(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _ATOMS else copied(item) for item in value]
    if kind is tuple:
        return tuple(item if type(item) in _ATOMS else copied(item) for item in value)
    return value if kind in _ATOMS else copy.deepcopy(value)


@functools.lru_cache(maxsize=64)
def _config_dict(engine: Game, parsed: Any) -> dict[str, Any]:
    """A parsed (frozen, hashable) configuration as plain JSON data; cached: a new game of an RL
    environment should not pay a JSON round trip. Callers copy it (`copied`)."""
    return plain(engine.config_to_dict(parsed))  # type: ignore[no-any-return]


#: The largest game seed: what `armada play --seed` takes, and what a replay's seed can be played again with.
LARGEST_SEED = 2**63 - 1


class GameDriver:
    """One game from its seed and configuration (or a saved state) to its result."""

    def __init__(self, game: str | Game, seed: int, config: dict[str, Any] | None = None,
                 start_state: dict[str, Any] | None = None, *, record: bool = True) -> None:
        """Raises ConfigError for a bad configuration, ValueError for a bad seed or state.

        `record=False`: the replay is recorded only when `recorder` is read (see the module)."""
        self.engine = resolve_game(game)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        if not 0 <= seed <= LARGEST_SEED:  # the engines reduce a seed modulo 2**64: 2**64 would play seed 0
            raise ValueError(f"seed must be from 0 to {LARGEST_SEED}, what `armada play --seed` takes "
                             f"(so the game can be played again there), got {seed}")
        self.seed = seed
        self._parsed = self.engine.parse_config(config)  # frozen: kept to play the game again
        try:
            self.config = copied(_config_dict(self.engine, self._parsed))  # type: ignore[arg-type]
        except TypeError:  # an engine whose parsed configuration is not hashable
            self.config = plain(self.engine.config_to_dict(self._parsed))
        self._start = copy.deepcopy(start_state)
        self.state = self._first_state(start_state)
        self._recorder = self._new_recorder(self.state) if record else None
        #: Without recording: each step's request types, turn and (copied) answers, to record later.
        self._played: list[tuple[dict[int, str], Any, dict[int, dict[str, Any]]]] = []
        #: The engine's events of the last step (its own objects: copy before handing them out).
        self.last_events: list[dict[str, Any]] = []
        self.turns_done = 0  # D-R-1: turns completed before the current request

    def _first_state(self, start_state: dict[str, Any] | None) -> Any:
        return (self.engine.load_state(start_state) if start_state is not None
                else self.engine.initial_state(self.seed, self._parsed))

    def _new_recorder(self, state: Any) -> ReplayRecorder:
        start = plain(self._start) if self._start is not None else None
        return ReplayRecorder(self.engine, self.seed, self.config, self.engine.frame(state), start)

    @property
    def recorder(self) -> ReplayRecorder:
        """The replay so far; without recording, recorded now from the answers kept (a new object each time)."""
        if self._recorder is not None:
            return self._recorder
        state = self._first_state(copy.deepcopy(self._start))
        recorder = self._new_recorder(state)
        for phases, turn, answers in self._played:
            step = self.engine.step(state, answers)
            state = step.state
            recorder.add_step(phases, turn, answers, step, self.engine.frame(state))
        return recorder

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
        payload = request.payload
        if not REFEREE_KEYS.isdisjoint(payload):
            payload = {k: v for k, v in payload.items() if k not in REFEREE_KEYS}
        return {"type": request.type, "id": request_id, **payload, "bank_ms": bank_ms}

    def advance(self, requests: dict[int, Request], answers: dict[int, dict[str, Any]], *,
                owned: bool = False) -> dict[int, Fault]:
        """Play one step with every seat's answer (without id); returns the faults the engine found.

        A drawing (`debug`, armada.drawing) is no part of an answer: it is left out here too.
        `owned`: nothing else holds the answers or changes them later, so the answers kept
        without recording need no copy."""
        answers = {seat: without_debug(answer) for seat, answer in answers.items()}
        phases = {number: request.type for number, request in requests.items()}
        turn = next(iter(requests.values())).payload.get("turn")
        if self._recorder is None:
            self._played.append((phases, turn, answers if owned else {s: copied(a) for s, a in answers.items()}))
        step = self.engine.step(self.state, answers)
        self.state = step.state
        self.last_events = step.events
        if self._recorder is not None:
            self._recorder.add_step(phases, turn, answers, step, self.engine.frame(self.state))
        return dict(step.faults)

    def forfeit(self, faults: dict[int, Fault]) -> Result:
        """The result when seats are disqualified (MD-12, GX-22), counting completed turns (D-R-1)."""
        return forfeit_result(faults, self.turns_done)

    def finish(self, seats: list[dict[str, Any]], result: Result,
               timings: dict[str, Any] | None = None) -> dict[str, Any]:
        """The finished replay."""
        return self.recorder.finish(seats, result, timings)
