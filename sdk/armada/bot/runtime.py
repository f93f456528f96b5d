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
    try:
        reply = bot.answer(message)
        if not isinstance(reply, dict):
            raise TypeError(f"answer() must return a dict, got {type(reply).__name__}")
        json.dumps(reply, allow_nan=False)  # fail here, where the fallback can still help
        return reply
    except Exception:
        fallback = bot.fallback(message)
        if fallback is None:
            raise
        print(f"[armada] error answering {message.get('type')} (id {message.get('id')}), "
              "sending the fallback reply:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
        return fallback


def _serve(bot: BaseBot, stdin: IO[Any], stdout: IO[Any]) -> None:
    while True:
        raw = stdin.readline()
        if not raw:
            return  # input closed: the match is over
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if not text.strip():
            continue
        message = json.loads(text)
        kind = message.get("type")
        if kind == "end":
            return
        if kind == "init":
            bot.on_init(message)
            # No name: the referee shows the bot's own name (its platform or file name), MD-3.
            reply: dict[str, Any] = {"name": str(bot.name)} if bot.name else {}
        else:
            reply = _answer(bot, message)
        out = {"id": message.get("id")}
        out.update((key, value) for key, value in reply.items() if key != "id")
        _write(stdout, out)


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
