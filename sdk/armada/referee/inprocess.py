"""`InProcessBot`: a `BotConnection` that plays a Python object in this process (`armada.run`).

The object is a bot-library bot (a `BaseBot` instance or class, answered through
`armada.bot.runtime.respond`, exactly as `run()` answers in a bot process) or any callable
taking the request dict and returning the reply dict (the id is added for it). What the bot
prints while it answers (stdout or stderr) goes to its log, as for a bot process. It runs in
the referee's thread for its seat and is timed like any bot; an exception it lets through
ends it like a crash, with the traceback in its log.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from armada.bot.base import BaseBot, in_process
from armada.referee.connection import BotConnection, BotGone, ExitInfo, LineBuffer, LogBuffer

Reply = Callable[[dict[str, Any]], dict[str, Any]]

_local = threading.local()
_install_lock = threading.Lock()
_installed = 0


class _Router(io.TextIOBase):
    """sys.stdout / sys.stderr while in-process bots play: a bot's thread writes to its log."""

    def __init__(self, original: Any) -> None:
        self.original = original

    def write(self, text: str) -> int:
        sink = getattr(_local, "sink", None)
        if sink is None:
            return int(self.original.write(text))
        sink(text)
        return len(text)

    def flush(self) -> None:
        if getattr(_local, "sink", None) is None:
            self.original.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.original, "isatty", lambda: False)())


@contextlib.contextmanager
def _captured(sink: Callable[[str], object]) -> Iterator[None]:
    """Route this thread's sys.stdout and sys.stderr writes to `sink` while the block runs."""
    import sys

    global _installed
    with _install_lock:
        if _installed == 0:
            sys.stdout, sys.stderr = _Router(sys.stdout), _Router(sys.stderr)
        _installed += 1
    _local.sink = sink
    try:
        yield
    finally:
        _local.sink = None
        with _install_lock:
            _installed -= 1
            if _installed == 0:
                for name in ("stdout", "stderr"):
                    stream = getattr(sys, name)
                    if isinstance(stream, _Router):
                        setattr(sys, name, stream.original)


class _Function(BaseBot):
    """A plain callable as a bot: it gets every request, `init` included, and returns the reply."""

    def __init__(self, function: Reply) -> None:
        self.function = function

    def on_init(self, init: dict[str, Any]) -> None:
        reply = self.function(init)
        if isinstance(reply, dict) and isinstance(reply.get("name"), str):
            self.name = reply["name"]

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.function(request)


def as_bot(target: Any) -> BaseBot:
    """A BaseBot for `target`: a BaseBot instance, a BaseBot class (instantiated) or a callable."""
    if isinstance(target, BaseBot):
        return target
    if isinstance(target, type) and issubclass(target, BaseBot):
        return target()
    if callable(target):
        return _Function(target)
    raise TypeError(f"not a bot: {target!r} (give a BaseBot, a BaseBot class or a callable)")


class InProcessBot(BotConnection):
    """Plays `target` (see `as_bot`) in this process."""

    def __init__(self, target: Any, label: str | None = None) -> None:
        self.bot = as_bot(target)
        self.label = label or getattr(target, "__name__", None) or type(self.bot).__name__
        self._lines = LineBuffer()
        self._log = LogBuffer()
        self._exit: ExitInfo = ExitInfo()
        self._running = False

    def start(self) -> None:
        self._running = True

    def send(self, line: bytes) -> None:
        if not self._running:
            raise BotGone("the bot is not running")
        message = json.loads(line)
        try:
            with _captured(lambda text: self._log.feed(text.encode("utf-8", "replace"))):
                in_process.seed = self.bot_seed
                try:
                    out = _respond(self.bot, message)
                finally:
                    in_process.seed = None
        except SystemExit as exc:  # as a process exits: quietly with its code, or with its message (code 1)
            if exc.code is not None and not isinstance(exc.code, int):
                self._log.feed(f"{exc.code}\n".encode("utf-8", "replace"))
            code = exc.code
            self._stop(ExitInfo(returncode=int(code) & 0xFF if isinstance(code, int) else 0 if code is None else 1))
            return
        except BaseException as exc:  # the bot's own error ends it, like a crash (no process exited: a trial)
            self._log.feed(traceback.format_exc().encode("utf-8", "replace"))
            self._stop(ExitInfo(returncode=1, raised=type(exc).__name__))
            return
        if out is None:
            self._stop(ExitInfo(returncode=0))
            return
        self._lines.feed(json.dumps(out, separators=(",", ":"), allow_nan=False).encode("utf-8") + b"\n")

    def _stop(self, info: ExitInfo) -> None:
        self._running = False
        self._exit = info
        self._lines.close()

    def read_line(self, deadline: float) -> bytes | None:
        return self._lines.read_line(deadline)

    def log(self) -> str:
        return self._log.text()

    def exit_info(self) -> ExitInfo:
        return self._exit

    def close(self, grace: float = 1.0) -> ExitInfo:
        if self._running:
            self._stop(ExitInfo(returncode=0))
        return self._exit


def _respond(bot: BaseBot, message: dict[str, Any]) -> dict[str, Any] | None:
    from armada.bot.runtime import respond

    return respond(bot, message)
