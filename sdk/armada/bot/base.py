"""The base of every bot written with the library.

A game's bot class (`armada.bot.galaxy.GalaxyBot`, `armada.bot.mothership.MothershipBot`)
subclasses `BaseBot`, turns raw protocol messages into typed observation objects, calls the
author's methods and turns their answers back into reply objects. `armada.bot.runtime.run`
owns stdin/stdout, ids and logging.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from typing import Any

from armada.bot.drawing import Drawing
from armada.referee.environment import SEED_VARIABLE

#: Per-thread seed of a bot played in-process (armada.referee.inprocess), read before the environment.
in_process = threading.local()


def plain_int(value: Any) -> Any:
    """`value` as Python's int when it is an integer of another type (numpy's int64 from a policy's
    `argmax`, a 0-d integer array), else as it is: a reply goes out as JSON, which takes Python's
    ints only (a trial's race of numpy numbers crashed with "int64 is not JSON serializable")."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    dtype = getattr(value, "dtype", None)
    if getattr(dtype, "kind", None) in ("i", "u") and getattr(value, "shape", None) == ():
        return int(value)
    return value


def bot_seed(default: int = 0) -> int:
    """This bot's ARMADA_BOT_SEED (docs/bots-environment.md): follows the match seed and the seat,
    tells nothing of the match seed. `default` when it is missing (a bot run by hand)."""
    seed = getattr(in_process, "seed", None)
    if isinstance(seed, int):
        return seed
    try:
        return int(os.environ[SEED_VARIABLE])
    except (KeyError, ValueError):
        return default


class BaseBot:
    """Subclass a game's bot class, not this one directly."""

    #: The game slug this bot plays ("galaxy" or "mothership").
    game: str = ""
    #: Display name announced in the init reply (MD-3: at most 40 printable characters).
    #: Left empty, the site shows the bot's own name (its platform or file name).
    name: str = ""
    #: Milliseconds left in this bot's time bank at the current request (protocol.md, "Time").
    bank_ms: int | None = None

    @functools.cached_property
    def debug(self) -> Drawing:
        """What this bot draws on the board for the current request (`self.debug.line(a, b)`, ...):
        cleared before every request and sent with the reply (docs/bot-library.md, "Drawing")."""
        return Drawing()

    def note_request(self, request: dict[str, Any]) -> None:
        """Called by `run` before every game request: keeps `bank_ms` up to date."""
        bank = request.get("bank_ms")
        if isinstance(bank, int) and not isinstance(bank, bool):
            self.bank_ms = bank

    def on_init(self, init: dict[str, Any]) -> None:
        """Called with the raw `init` message (seat, config, limits). Store what you need."""

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply object (without "id") to a game request. Game bot classes implement this."""
        raise NotImplementedError

    def fallback(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """A safe reply when the author's code raised, or None to let the bot crash."""
        return None

    def log(self, *parts: object) -> None:
        """Write a line to the bot's log (stderr). Never write to stdout: it carries the protocol."""
        print(*parts, file=sys.stderr, flush=True)
