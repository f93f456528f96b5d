"""`run(bot)`: the protocol loop a bot script ends with (`if __name__ == "__main__": run(MyBot())`).

It reads requests from stdin, calls the bot, writes one reply line per request with the
request's id, and returns at `end` or when stdin closes. While it runs, anything the bot's
own code prints (`print()`, even C code writing to file descriptor 1) goes to stderr, the
bot's log, so it can never break the protocol stream.
"""

from __future__ import annotations

import io
import json
import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from armada.bot.base import BaseBot
from armada.bot.drawing import Drawing
from armada.drawing import DEBUG_KEY
from armada.logmarks import exception_line


def _write(stream: IO[Any], obj: dict[str, Any]) -> None:
    line = json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n"
    if isinstance(stream, io.TextIOBase):
        stream.write(line)
    else:
        stream.write(line.encode("utf-8"))
    stream.flush()


@contextmanager
def _protocol_stdout() -> Iterator[IO[Any]]:
    """The real stdout for protocol lines, while sys.stdout and fd 1 point at stderr."""
    saved_stdout = sys.stdout
    sys.stdout.flush()
    try:
        out_fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else -1
        err_fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        out_fd = err_fd = -1
    if out_fd < 0 or err_fd < 0:
        # No real file descriptors (e.g. embedded): redirect at the Python level only.
        sys.stdout = sys.stderr
        try:
            yield saved_stdout.buffer if hasattr(saved_stdout, "buffer") else saved_stdout
        finally:
            sys.stdout = saved_stdout
        return
    proto_fd = os.dup(out_fd)
    os.dup2(err_fd, out_fd)
    sys.stdout = sys.stderr
    proto = os.fdopen(proto_fd, "wb", buffering=0)
    try:
        yield proto
    finally:
        sys.stdout = saved_stdout
        os.dup2(proto_fd, out_fd)
        proto.close()


def _answer(bot: BaseBot, message: dict[str, Any]) -> dict[str, Any]:
    bot.note_request(message)
    try:
        reply = bot.answer(message)
        if not isinstance(reply, dict):
            raise TypeError(f"answer() must return a dict, got {type(reply).__name__}")
        json.dumps(reply, allow_nan=False)  # fail here, where the fallback can still help
        return reply
    except Exception as exc:
        fallback = bot.fallback(message)
        if fallback is None:
            raise
        # One line the referee counts (armada.logmarks), then the traceback for the author.
        print(exception_line(message, exc), file=sys.stderr)
        print("[armada] sending the fallback reply; the traceback:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
        return fallback


def check_game(bot: BaseBot, init: dict[str, Any]) -> None:
    """Stop with a clear message when the match is of another game than the bot's."""
    game = init.get("game")
    if bot.game and isinstance(game, str) and game != bot.game:
        print(f"[armada] this is a {bot.game} bot; run with --game {bot.game} "
              f"(this match is {game})", file=sys.stderr, flush=True)
        raise SystemExit(2)


def _serve(bot: BaseBot, stdin: IO[Any], stdout: IO[Any]) -> None:
    while True:
        raw = stdin.readline()
        if not raw:
            return  # input closed: the match is over
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if not text.strip():
            continue
        out = respond(bot, json.loads(text))
        if out is None:
            return
        _write(stdout, out)


def _drawn(bot: BaseBot, message: dict[str, Any]) -> dict[str, Any]:
    """The answer with what the bot drew while giving it (`self.debug`, cleared first) as `debug`."""
    drawing = getattr(bot, "__dict__", {}).get("debug")  # made on first use (BaseBot.debug)
    if isinstance(drawing, Drawing):
        drawing.clear()
    reply = _answer(bot, message)
    drawing = getattr(bot, "__dict__", {}).get("debug")
    if not isinstance(drawing, Drawing):
        return reply
    drawn = drawing.to_json()
    note = drawing.notice()  # (counts the notes it gives: once per reply)
    if note:
        print(note, file=sys.stderr, flush=True)
    return reply if drawn is None else {**reply, DEBUG_KEY: drawn}


def respond(bot: BaseBot, message: dict[str, Any]) -> dict[str, Any] | None:
    """The reply line's object (with the request's id) to one request; None for `end`.

    The same for a bot process (`run`) and a bot played in-process (`armada.run`).
    """
    kind = message.get("type")
    if kind == "end":
        return None
    if kind == "init":
        check_game(bot, message)
        drawing = getattr(bot, "__dict__", {}).get("debug")
        if isinstance(drawing, Drawing):  # a new match (one bot object may play several): notes anew
            drawing.noted = 0
        bot.on_init(message)
        # No name: the referee shows the bot's own name (its platform or file name), MD-3.
        reply: dict[str, Any] = {"name": str(bot.name)} if bot.name else {}
    else:
        reply = _drawn(bot, message)
    out = {"id": message.get("id")}
    out.update((key, value) for key, value in reply.items() if key != "id")
    return out


def run(bot: BaseBot, stdin: IO[Any] | None = None, stdout: IO[Any] | None = None) -> None:
    """Serve the protocol for `bot` until `end` or end of input.

    `stdin`/`stdout` default to the process's own (binary) streams; tests may pass text or
    binary streams. An exception in `answer()` prints its traceback to stderr and sends
    `bot.fallback(request)`; when that is None the exception propagates and the bot exits.
    """
    if stdin is None:
        stdin = sys.stdin.buffer
    if stdout is not None:
        saved = sys.stdout
        sys.stdout = sys.stderr
        try:
            _serve(bot, stdin, stdout)
        finally:
            sys.stdout = saved
        return
    with _protocol_stdout() as proto:
        _serve(bot, stdin, proto)
