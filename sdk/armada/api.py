"""Playing from Python (notebooks, scripts): `armada.run` for a whole match, `armada.Session` step by step.

    import armada
    outcome = armada.run("galaxy", ["builtin:greedy", "mybot/"], seed=7)
    outcome.winner, outcome.turns, outcome.replay

    session = armada.Session("galaxy", seed=7)
    while not session.done:
        asked = session.requests()            # seat -> the request a bot would get
        session.step({seat: my_reply(request) for seat, request in asked.items()})
    session.result

`run` is `armada play` without the command line: the same engines, referee and limits, each
bot given as on the command line (`builtin:NAME`, a .py file, a folder, a .zip), as a
bot-library bot (instance or class) or as a callable `request -> reply` played in-process.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Sequence
from typing import Any

from armada.games.base import SEATS, Fault, Game, Result
from armada.referee.clock import Limits, default_limits
from armada.referee.connection import BotConnection
from armada.referee.game_driver import GameDriver
from armada.referee.match import MatchOutcome, play_match
from armada.replay import plain


def connect(bot: Any, game: str, stack: contextlib.ExitStack, seat: int) -> BotConnection:
    """A connection for one bot of `run`: a spec string runs as a process, anything else in-process."""
    if isinstance(bot, BotConnection):
        return bot
    if isinstance(bot, str):
        from armada.botspec import resolve_bot

        source = stack.enter_context(resolve_bot(bot, game))
        return source.process_connection(label=bot)
    from armada.referee.inprocess import InProcessBot

    return InProcessBot(bot, label=f"seat{seat}")


def run(game: str, bots: Sequence[Any], *, seed: int | None = None, config: dict[str, Any] | None = None,
        limits: Limits | None = None, start_state: dict[str, Any] | None = None) -> MatchOutcome:
    """Play one match; `bots` are seat 1 and seat 2. Returns the outcome (`winner`, `turns`, `replay`).

    `seed` defaults to a random one (the replay records it). Raises BotSpecError for a bot spec
    that cannot be resolved, ConfigError for a bad configuration.
    """
    if len(bots) != len(SEATS):
        raise ValueError(f"run needs exactly {len(SEATS)} bots, got {len(bots)}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    with contextlib.ExitStack() as stack:
        connections = {seat: connect(bot, game, stack, seat) for seat, bot in zip(SEATS, bots, strict=True)}
        return play_match(game, connections, seed=seed, config=config, limits=limits, start_state=start_state)


class Session:
    """A game driven from Python, one step at a time, by the engine and the referee's rules.

    `requests()` gives each seat's request as a bot would receive it (with `type`, `id`, the
    game's fields and `bank_ms`); `step(replies)` plays the step with one reply per seat.
    A reply of the wrong shape ends the game by forfeit as in a match (GX-22, MD-12); so does
    `forfeit(seat, status, detail)`. Time is not measured.
    """

    def __init__(self, game: str | Game, seed: int = 0, config: dict[str, Any] | None = None,
                 start_state: dict[str, Any] | None = None, limits: Limits | None = None, *,
                 record: bool = True) -> None:
        """`record=False` records no replay while playing (faster steps): `replay()` then plays the
        game's answers again to record it, the same replay (what `armada.rl`'s environments do)."""
        self.driver = GameDriver(game, seed, config, start_state, record=record)
        self.limits = limits or default_limits(self.driver.engine)
        self.faults: dict[int, Fault] = {}
        self._ids = {seat: 1 for seat in SEATS}  # id 0 is the init message
        self._asked: dict[int, Any] = {}
        self._messages: dict[int, dict[str, Any]] = {}
        self._result: Result | None = None
        #: The seats' names in `replay()` when it is not given them (else "seat N").
        self.names: dict[int, str] = {}

    @property
    def config(self) -> dict[str, Any]:
        """The full configuration (what bots get in `init`)."""
        return self.driver.config

    def init_message(self, seat: int) -> dict[str, Any]:
        """The `init` message seat `seat` would get (protocol.md)."""
        from armada.referee.framing import PROTOCOL_VERSION

        return {"type": "init", "id": 0, "protocol": PROTOCOL_VERSION, "game": self.driver.engine.slug,
                "seat": seat, "config": self.config, "limits": self.limits.to_dict()}

    @property
    def result(self) -> Result | None:
        """How the game ended, None while it goes on."""
        if self._result is None:
            self._result = self.driver.result()
        return self._result

    @property
    def done(self) -> bool:
        return self.result is not None

    @property
    def state(self) -> dict[str, Any]:
        """The engine's whole state as JSON data (`armada play --from-state` reads it)."""
        return self.driver.engine.dump_state(self.driver.state)

    def requests(self) -> dict[int, dict[str, Any]]:
        """Each seat's request now (the same message until `step` is called)."""
        if self.done:
            raise RuntimeError("the game is over; see `result`")
        if not self._asked:
            self._asked = self.driver.requests()
            self._messages = {seat: self.driver.message(request, self._ids[seat], self.limits.bank_ms)
                              for seat, request in self._asked.items()}
        return {seat: dict(message) for seat, message in self._messages.items()}

    def step(self, replies: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
        """Play one step with one reply object per seat (an `id`, if given, is ignored); returns its events."""
        self.advance(replies)
        return plain(self.driver.last_events)  # type: ignore[no-any-return]

    def advance(self, replies: dict[int, dict[str, Any]], *, owned: bool = False) -> None:
        """`step` without its events (nothing to copy: what an environment calls). `owned`: the
        reply objects are the session's, nobody changes them later (no copy kept for `replay()`)."""
        if not self._asked:
            self.requests()
        asked = self._asked
        missing = [seat for seat in asked if seat not in replies]
        if missing:
            raise ValueError(f"step needs a reply for every seat asked, missing seat {missing[0]}")
        answers = {seat: dict(replies[seat]) for seat in asked}
        for answer in answers.values():
            answer.pop("id", None)
        faults = self.driver.advance(asked, answers, owned=owned)
        for seat in asked:
            self._ids[seat] += 1
        self._asked = {}
        if faults:
            self.forfeit_all(faults)

    def forfeit(self, seat: int, status: str = "crashed", detail: str = "forfeited") -> None:
        """Disqualify a seat (a status of protocol.md); the other seat wins (MD-12, GX-22)."""
        self.forfeit_all({seat: Fault(status, detail)})

    def forfeit_all(self, faults: dict[int, Fault]) -> None:
        self.faults.update(faults)
        self._result = self.driver.forfeit(self.faults)

    def replay(self, names: dict[int, str] | None = None) -> dict[str, Any]:
        """The replay of the game so far (finished or not: `result` then holds the game's state); the
        seats named by `names`, else by the session's `names`, else "seat N"."""
        names = names or self.names
        seats = [{"seat": s, "name": names.get(s, f"seat {s}"),
                  "status": self.faults[s].status if s in self.faults else "ok",
                  "detail": self.faults[s].detail if s in self.faults else ""} for s in SEATS]
        result = self.result or Result(None, "unfinished", self.driver.turns_done)
        return dict(self.driver.recorder.finish(seats, result))
