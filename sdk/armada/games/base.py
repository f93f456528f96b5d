"""The small common interface every game engine implements and the referee drives.

A game is a stateless object; all match data lives in a plain state object that the
engine creates from a seed and advances one step at a time from the seats' answers.
Engines are pure and deterministic: the only randomness is a seeded generator kept in
the state (see `armada.games.rng`). Bot faults are statuses (`Fault`), never exceptions.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Protocol

SEATS: tuple[int, int] = (1, 2)

#: Every status a seat can end a match with (protocol.md, "Statuses").
STATUSES: tuple[str, ...] = ("ok", "timeout", "crashed", "protocol", "invalid", "memory", "output")


class ConfigError(ValueError):
    """A game configuration was rejected; `field` names the offending key."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Request:
    """What one seat is asked now.

    `type` is the protocol message type ("orders", "scout", "command"); `payload` holds the
    game fields of the message (e.g. "turn", "observation", "intel", "warnings"). The
    referee adds "type", "id" and "bank_ms" itself.
    """

    type: str
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Fault:
    """A seat's disqualification: a status from STATUSES other than "ok", and one line of detail."""

    status: str
    detail: str


@dataclass
class StepResult:
    """What one step produced: the next state, the events to record, and seat faults the game found."""

    state: Any
    events: list[dict[str, Any]] = field(default_factory=list)
    faults: dict[int, Fault] = field(default_factory=dict)


@dataclass(frozen=True)
class Result:
    """How a match ended.

    winner: 1, 2 or None (draw). outcome: "destruction", "damage", "draw" (mothership),
    "elimination", "turn_limit", "draw" (galaxy), or "forfeit" in either game.
    turns: rounds fought (mothership) or turns played (galaxy). `scores` holds game figures
    for display (damage taken, planets, MLE).
    """

    winner: int | None
    outcome: str
    turns: int
    scores: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data of its own (the scores copied: a caller keeping or changing one
        dict never changes another's, e.g. an RL environment's infos of two steps)."""
        return {"winner": self.winner, "outcome": self.outcome, "turns": self.turns,
                "scores": copy.deepcopy(self.scores)}


class Game(Protocol):
    """The engine interface (architecture.md, "Engines")."""

    slug: str
    engine_version: str
    #: What `Result.turns` counts, as output says it: "turns" (Galaxy) or "rounds" (Mothership Down's battle).
    turns_label: str

    def parse_config(self, raw: dict[str, Any] | None) -> Any:
        """Validate a configuration dict (None or missing keys: defaults); raise ConfigError naming the field."""

    def config_to_dict(self, config: Any) -> dict[str, Any]:
        """The configuration as plain JSON data (sent to bots in `init`, stored in replays)."""

    def initial_state(self, seed: int, config: Any) -> Any:
        """The state before the first request, fully determined by seed and config."""

    def requests(self, state: Any) -> dict[int, Request]:
        """What each seat is asked now (both seats in every step of our two games)."""

    def step(self, state: Any, answers: dict[int, dict[str, Any]]) -> StepResult:
        """Advance one step from each seat's reply object (without "id"). May consume `state`."""

    def result(self, state: Any) -> Result | None:
        """The result once the game is over, else None."""

    # Optional: `replay_answer(phase, answer) -> dict`, the part of an answer the replay keeps
    # (only what the engine reads, bounded in size). Without it the whole answer is kept,
    # up to armada.replay.MAX_ANSWER_BYTES.
    # Optional: `drawing_board() -> armada.drawing.Board`, the ids and the box a bot's drawing may
    # name (protocol.md, "Drawing"). Without it a drawing may use `[x, y]` in the unit square only.

    def frame(self, state: Any) -> dict[str, Any] | None:
        """Enough state, as JSON data, to draw this moment in a replay viewer (None: nothing new to draw)."""

    def dump_state(self, state: Any) -> dict[str, Any]:
        """The whole state as JSON data (hidden parts and the generator included)."""

    def load_state(self, data: dict[str, Any]) -> Any:
        """Inverse of dump_state; raises ValueError with a clear message on bad data."""


def forfeit_result(faults: dict[int, Fault], turns: int) -> Result:
    """The result when seats are disqualified: the other seat wins; both at once is a draw (MD-12, GX-22)."""
    faulted = sorted(faults)
    winner = None if len(faulted) >= 2 else (2 if faulted[0] == 1 else 1)
    return Result(winner=winner, outcome="forfeit", turns=turns)
