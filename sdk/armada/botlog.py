"""A bot's log (its stderr) split by request, as the site's match page shows it.

The referee marks each request in the log (`armada.logmarks`); the replay names every request
(`request_kinds`) and times it. `log_requests` joins the two: the lines before the first mark,
then each request with its type, turn, milliseconds and lines, and the traceback the bot did not
survive (its crash): not one the bot library caught and answered with its fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from armada.logmarks import EXCEPTION_MARK, parse_mark


@dataclass
class RequestLog:
    """One request of the referee to a seat: its type and turn (from the replay, or the log's mark),
    its time from the replay, and the lines the bot wrote while answering it."""

    number: int
    type: str
    turn: int | None
    ms: float | None = None
    lines: list[str] = field(default_factory=list)


@dataclass
class SeatLog:
    """A seat's log as the match page shows it."""

    head: list[str]
    requests: list[RequestLog]
    #: The traceback the bot did not survive (its crash), and the request it was written in; empty when none.
    crash: list[str] = field(default_factory=list)
    crash_request: RequestLog | None = None


def request_kinds(replay: dict[str, Any] | None, seat: int) -> list[tuple[str, int | None]]:
    """(type, turn) of each request the referee sent to `seat`, by id: `init` first, then one per
    recorded step (its phase and turn). The failing request of a fault is not a step (it was never played)."""
    kinds: list[tuple[str, int | None]] = [("init", None)]
    for step in (replay or {}).get("steps") or []:
        if not isinstance(step, dict):
            continue
        phase = step.get("phase")
        if isinstance(phase, dict):
            phase = phase.get(str(seat))
        turn = step.get("turn")
        kinds.append((str(phase or ""), turn if isinstance(turn, int) and not isinstance(turn, bool) else None))
    failed = _fault_request(replay, seat)  # the request the match ended on, named by the seat's fault
    if (failed is None or failed[0] != len(kinds)) and _shared_phases(replay):
        # or by the other seat's: both seats were sent that request, and their phases are the game's
        failed = next((f for other in (1, 2) if other != seat and (f := _fault_request(replay, other))), None)
    if failed is not None and failed[0] == len(kinds):
        kinds.append(failed[1:])
    return kinds


def _shared_phases(replay: dict[str, Any] | None) -> bool:
    """Whether every recorded step names one phase for both seats (not one per seat)."""
    return not any(isinstance(step, dict) and isinstance(step.get("phase"), dict)
                   for step in (replay or {}).get("steps") or [])


#: How the referee names a request in a fault's detail (`referee.seat.describe`): `command (id 66, turn 33)`.
_REQUEST_NAMED = re.compile(r"\b([a-z_]+) \(id (\d+)(?:, turn (\d+))?\)")


def _fault_request(replay: dict[str, Any] | None, seat: int) -> tuple[int, str, int | None] | None:
    """(id, type, turn) of the request the seat's fault names, if its detail names one."""
    for entry in (replay or {}).get("seats") or []:
        if isinstance(entry, dict) and entry.get("seat") == seat and isinstance(entry.get("detail"), str):
            found = _REQUEST_NAMED.search(entry["detail"])
            if found:
                return int(found[2]), found[1], int(found[3]) if found[3] is not None else None
    return None


TRACEBACK = "Traceback (most recent call last):"
#: The line a connection's log puts where it dropped the middle of a long log (`LogBuffer.text`).
_DROPPED = re.compile(r"^\[\.\.\. \d+ bytes of log dropped \.\.\.\]$")


def log_requests(log: str, timings: list[float] | None,
                 kinds: list[tuple[str, int | None]] | None = None) -> SeatLog:
    """The seat's log split by request: lines before the first mark, then every request with its type,
    turn and time and the lines written during it, and its crash (`_crash`).

    The replay's `timings` hold each request's milliseconds in the order sent, so request N's
    time is timings[N] (ids count from 0, init first); `kinds` (`request_kinds`) name each request.
    The referee marks only the requests during which the bot wrote something; those give the type
    and turn of a request the replay does not name. Given either, the requests are all those sent,
    so only the last one's traceback is the crash (a bot that wrote one at turn 3 and timed out at
    turn 33 did not crash at turn 3); from the log alone, the last traceback not caught.
    """
    head: list[str] = []
    marked: dict[int, RequestLog] = {}
    current: RequestLog | None = None
    for line in log.splitlines():
        mark = parse_mark(line)
        if mark is not None:
            current = marked.setdefault(mark[0], RequestLog(*mark))
        elif current is not None:
            current.lines.append(line)
        else:
            head.append(line)
    times = list(timings or [])
    named = list(kinds or [])
    count = max(len(times), len(named))
    requests = [marked.get(n) or RequestLog(n, *(named[n] if n < len(named) else ("", None))) for n in range(count)]
    requests += [r for n, r in sorted(marked.items()) if n >= count]
    for request in requests:
        if request.number < len(times):
            request.ms = times[request.number]
        if request.number < len(named) and named[request.number][0]:
            request.type, request.turn = named[request.number]
    crash, where = _crash(head, requests, sent=bool(times or named))
    return SeatLog(head, requests, crash, where)


def _crash(head: list[str], requests: list[RequestLog], *, sent: bool) -> tuple[list[str], RequestLog | None]:
    """The lines from the last uncaught traceback to the end of the request it was written in, and
    that request. With `sent` (`requests` are all the requests sent), only the last request, or the
    head when the bot wrote nothing after it, can hold the crash; in a log cut in the middle, where
    the last request's mark may be lost and its lines sit under the request the cut fell in, only
    what follows the cut can (two reviews: the crash lost, then an earlier handled traceback taken)."""
    cut = next((n for n, r in enumerate(requests) if any(_DROPPED.match(line) for line in r.lines)), None)
    if not sent:
        seen = [(r, r.lines) for r in requests[::-1]]
    elif cut is None:
        seen = [(r, r.lines) for r in requests[-1:]]
    else:
        seen = [(r, r.lines) for r in requests[:cut:-1]] + [(requests[cut], _after_cut(requests[cut].lines))]
    for request, written in seen:
        lines = uncaught(written)
        if TRACEBACK in lines:
            at = len(lines) - 1 - lines[::-1].index(TRACEBACK)
            return lines[at:], request
    if sent and any(_DROPPED.match(line) for line in head):
        head = _after_cut(head)
    if TRACEBACK in head and not (sent and any(r.lines for r in requests[:-1])):
        return head[len(head) - 1 - head[::-1].index(TRACEBACK):], None
    return [], None


def _after_cut(lines: list[str]) -> list[str]:
    """The lines after the last cut's marker in `lines`."""
    marks = [n for n, line in enumerate(lines) if _DROPPED.match(line)]
    return lines[marks[-1] + 1:] if marks else lines


def uncaught(lines: list[str]) -> list[str]:
    """`lines` without what the bot library wrote for each exception it caught (`[armada] exception
    caught ...` and the traceback after it, to the next request mark): the bot survived those."""
    kept: list[str] = []
    caught = False
    for line in lines:
        if parse_mark(line) is not None or _DROPPED.match(line):  # (what follows a cut is another request's)
            caught = False
        elif line.startswith(EXCEPTION_MARK):
            caught = True
        if not caught:
            kept.append(line)
    return kept


def crash_reason(log: str) -> str:
    """The last line of the last uncaught traceback in a log (`SyntaxError: '(' was never closed`);
    empty when none (an exception the bot library caught is not why the bot stopped)."""
    crash = log_requests(log, None).crash
    for line in reversed(crash):  # the referee's own notes after it ("[armada] ...") are not the error
        if line.strip() and not line.startswith((" ", "\t", "[armada] ")) and line != TRACEBACK:
            return line.strip()
    for line in reversed(uncaught(log.splitlines())):  # a SyntaxError in the entry file has no "Traceback" line
        if _ERROR_LINE.match(line) and parse_mark(line) is None:
            return line.strip()
    return ""


def last_note(log: str) -> str:
    """The last `[armada] ...` line of a log that is not a request mark (what the bot library said
    when it stopped on purpose: `[armada] this is a galaxy bot; run with --game galaxy ...`); empty
    when none."""
    for line in reversed(log.splitlines()):
        if line.startswith("[armada] ") and parse_mark(line) is None:
            return line.strip()
    return ""


#: A line naming an exception, as Python prints it last (`NameError: name 'x' is not defined`).
_ERROR_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception)(: .*)?$")
