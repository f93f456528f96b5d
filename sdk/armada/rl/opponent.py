"""The fixed opponent of `gym_env`: a builtin starter, a bot folder or file, or a Python bot.

Builtin starters and Python objects (a callable `request -> reply`, a bot-library bot or bot
class) play in this process, through `InProcessBot`; a folder, .py file or .zip runs as a bot
process (`ProcessBot`), as `armada play` runs it. Either way the opponent gets the protocol's
messages (`init`, the game's requests, `end`) and its answers go through the referee's
`Seat.exchange`, each within the request's limit (`turn_ms` plus the whole bank: the
environment does not charge a bank).
"""

from __future__ import annotations

import contextlib
from typing import Any

from armada.api import Session
from armada.botspec import BUILTIN_PREFIX, check_game, resolve_bot, starter_class
from armada.games.base import Fault, Result
from armada.referee.connection import BotConnection
from armada.referee.environment import bot_seed
from armada.referee.framing import encode_message
from armada.referee.inprocess import InProcessBot
from armada.referee.seat import Seat

#: Seconds a bot process gets to exit after `end`.
END_GRACE_S = 1.0


def connection(opponent: Any, game: str, stack: contextlib.ExitStack) -> BotConnection:
    """An unstarted connection for `opponent`; BotSpecError for a spec that cannot be resolved."""
    if isinstance(opponent, str):
        check_game(game)
        if opponent.startswith(BUILTIN_PREFIX):
            name = opponent[len(BUILTIN_PREFIX):]
            return InProcessBot(starter_class(name, game), label=opponent)  # BotSpecError naming the starters
        return stack.enter_context(resolve_bot(opponent, game)).process_connection(label=opponent)
    return InProcessBot(opponent)


class Opponent:
    """One opponent seat, started anew for every game."""

    def __init__(self, opponent: Any, game: str, seat: int) -> None:
        self.opponent = opponent
        self.game = game
        self.number = seat
        self.stack = contextlib.ExitStack()
        self.seat: Seat | None = None
        self.next_id = 1  # id 0 is init
        connection(opponent, game, self.stack)  # a bad spec fails here, when the environment is made
        self.stack.close()

    @property
    def name(self) -> str:
        """Its name in a replay: the spec as given, or a Python bot's name (its function's or class's)."""
        if isinstance(self.opponent, str):
            return self.opponent
        named = self.opponent if isinstance(self.opponent, type) or hasattr(self.opponent, "__name__") \
            else type(self.opponent)
        return str(getattr(named, "__name__", "opponent"))

    def start(self, session: Session, seed: int) -> Fault | None:
        """Start the bot for a new game and send it `init`; its fault if it fails."""
        self.close()
        conn = connection(self.opponent, self.game, self.stack)
        conn.bot_seed = bot_seed(seed, self.number)
        self.seat = Seat(self.number, conn, session.limits)
        self.next_id = 1
        try:
            conn.start()
        except Exception as exc:
            return Fault("crashed", f"could not start: {exc}")
        return self.seat.exchange(session.init_message(self.number), float(session.limits.init_ms)).fault

    def answer(self, message: dict[str, Any]) -> tuple[dict[str, Any] | None, Fault | None]:
        """The opponent's reply to a request, or its fault."""
        assert self.seat is not None, "start the opponent first"
        limits = self.seat.limits
        self.next_id = int(message["id"]) + 1
        exchange = self.seat.exchange(message, float(limits.turn_ms + limits.bank_ms))
        return exchange.reply, exchange.fault

    def finish(self, result: Result) -> None:
        """Send `end` and stop the bot."""
        if self.seat is not None:
            with contextlib.suppress(Exception):  # a bot that is gone does not get its end message
                self.seat.conn.send(encode_message({"type": "end", "id": self.next_id, "result": result.to_dict()}))
        self.close()

    def log(self) -> str:
        """What the opponent wrote to its log in the current (or last) game."""
        return self.seat.conn.log() if self.seat is not None else ""

    def close(self) -> None:
        """Stop the bot of the current game, if any, and remove its temporary files."""
        if self.seat is not None:
            with contextlib.suppress(Exception):
                self.seat.conn.close(grace=END_GRACE_S)
        self.stack.close()
