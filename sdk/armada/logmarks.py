"""Lines of a bot's log (its stderr) that the referee and the bot library write for people and tools.

- The referee writes a request mark before each request, so every later line of the log
  belongs to that request (and its turn): `[armada] --- request 13: scout, turn 7 ---`.
- The bot library writes `[armada] exception caught ...` when it answered with its fallback
  after the bot's code raised; the referee counts these lines.
"""

from __future__ import annotations

import re
from typing import Any

#: Start of the bot library's line for an exception it caught (the referee counts them).
EXCEPTION_MARK = "[armada] exception caught"
_REQUEST = re.compile(r"^\[armada\] --- request (\d+): (\w+)(?:, turn (\d+))? ---$")


def request_mark(message: dict[str, Any]) -> str:
    """The mark line (without newline) of a request about to be sent."""
    turn = message.get("turn")
    where = f", turn {turn}" if isinstance(turn, int) and not isinstance(turn, bool) else ""
    return f"[armada] --- request {message.get('id')}: {message.get('type')}{where} ---"


def parse_mark(line: str) -> tuple[int, str, int | None] | None:
    """(request id, type, turn or None) of a mark line, None for any other line."""
    found = _REQUEST.match(line.rstrip("\r\n"))
    if found is None:
        return None
    return int(found.group(1)), found.group(2), int(found.group(3)) if found.group(3) else None


def lines_by_turn(log: str) -> dict[int | None, list[str]]:
    """The log's lines grouped by the turn of the request they were written in.

    Lines before the first turn (init, Mothership's orders) are under None; marks are left out.
    """
    groups: dict[int | None, list[str]] = {}
    turn: int | None = None
    for line in log.splitlines():
        mark = parse_mark(line)
        if mark is not None:
            turn = mark[2]
            continue
        groups.setdefault(turn, []).append(line)
    return groups


def exception_line(request: dict[str, Any], error: BaseException) -> str:
    """The library's line for an exception it caught while answering `request`."""
    turn = request.get("turn")
    where = f"turn {turn}, " if turn is not None else ""
    text = " ".join(f"{type(error).__name__}: {error}".split())[:200]
    return f"{EXCEPTION_MARK} ({where}{request.get('type')} id {request.get('id')}): {text}"


def exception_summary(line: str) -> str:
    """`at turn 10: ZeroDivisionError: division by zero` from an exception line."""
    found = re.match(re.escape(EXCEPTION_MARK) + r" \((?:turn (\d+), )?(\w+) id \d+\): (.*)$", line)
    if found is None:
        return line[len(EXCEPTION_MARK):].strip()
    where = f"at turn {found.group(1)}" if found.group(1) else f"in {found.group(2)}"
    return f"{where}: {found.group(3)}"


def strip_marks(log: str) -> str:
    """The log without the referee's request marks (what the bot itself wrote)."""
    return "".join(line for line in log.splitlines(keepends=True) if parse_mark(line) is None)
