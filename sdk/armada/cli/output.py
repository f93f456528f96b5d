"""Text output for the command line: aligned tables, a progress bar, log tails."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from armada.logmarks import strip_marks
from armada.referee.seat import unbracketed


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[int] = ()) -> str:
    """A plain-text table; columns whose index is in `right` are right-aligned (numbers)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        out = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule] + [line(r) for r in cells[1:]])


def winner_text(winner: int | None, outcome: str, names: dict[int, str]) -> str:
    """`seat 2, Random, by elimination`, or `draw` (`draw (forfeit)` when both seats faulted)."""
    if winner is None:
        return "draw" if outcome == "draw" else f"draw ({outcome})"
    return f"seat {winner}, {names.get(winner, '?')}, by {outcome}"


def status_cells(player: dict[str, Any]) -> tuple[str, str]:
    """The status and detail cells of a seat: `ok, 12 exceptions caught` with the first one as its detail
    (`first at turn 10: ZeroDivisionError: ...`) when the bot library caught exceptions."""
    caught = player.get("exceptions") or {}
    count = caught.get("count", 0)
    detail = str(player.get("detail") or "")
    if player.get("reason"):  # a crash's own words, as the site shows them (`armada play` adds them)
        detail = f"{detail}: {player['reason']}" if detail else str(player["reason"])
    if not count:
        return str(player["status"]), detail
    first = f"first {caught.get('first', '')}"
    return (f"{player['status']}, {count} exception{'s' if count != 1 else ''} caught",
            f"{detail}; {first}" if detail else first)


def seat_notes(players: list[dict[str, Any]]) -> list[str]:
    """Lines under the seats' table: orders and probes dropped (GX-8, GX-10), then each seat's time."""
    lines = []
    for p in players:
        dropped = p.get("warnings") or {}
        if dropped.get("count"):
            lines.append(f"dropped: seat {p['seat']}: {dropped['count']} orders or probe targets "
                         f"(first {dropped.get('first', '')})")
    for index, p in enumerate(players):
        used = p.get("time")
        if used:
            lines.append(("time:    " if index == 0 else "         ") + f"seat {p['seat']}: "
                         f"{used['total_ms']:.0f} ms in all, slowest {used['slowest_ms']:.0f} ms "
                         f"({unbracketed(used['slowest'] or '-')}), bank left {used['bank_left_ms']} ms")
    measured = [p for p in players if p.get("memory_peak_mib") is not None]  # in the sandbox only
    for index, p in enumerate(measured):
        lines.append(("memory:  " if index == 0 else "         ") + f"seat {p['seat']}: "
                     f"peak {p['memory_peak_mib']} MiB")
    if lines:
        lines.append("")
    return lines


def log_tail(seat: int, name: str, log: str | None, lines: int, hint: bool = True) -> str:
    """The last lines of a seat's log (without the referee's marks), and how to get all of it."""
    kept = tail(strip_marks(log or ""), lines)
    text = f"log of seat {seat} ({name}), last lines:\n" + (indent(kept) if kept else "    (empty)")
    if hint:
        text += "\n    (the whole log: add --log-dir DIR)"
    return text


def tail(text: str, lines: int = 20) -> str:
    """The last `lines` lines of a log."""
    kept = text.rstrip("\n").splitlines()[-lines:]
    return "\n".join(kept)


def indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


class Progress:
    """A progress bar on a stream: redrawn in place on a terminal, otherwise a line now and then."""

    def __init__(self, total: int, label: str = "games", stream: TextIO | None = None,
                 width: int = 30, every_s: float = 10.0, figure: Callable[[int], str] = str) -> None:
        self.total = total
        self.figure = figure  # how a count is shown (`armada submit`: bytes as tenths of MiB or KiB)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.every_s = every_s
        self.done = 0
        self.errors = 0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._started = time.monotonic()
        self._last_line = float("-inf")
        self._last_pct = -1
        self._ended = False  # the plain end line is written once, whatever advances after it

    def text(self) -> str:
        frac = self.done / self.total if self.total else 1.0
        filled = round(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.monotonic() - self._started
        extra = f", {self.errors} errors" if self.errors else ""
        return f"[{bar}] {self.figure(self.done)}/{self.figure(self.total)} {self.label} ({elapsed:.0f}s{extra})"

    def start(self) -> None:
        """Show the empty bar (on a terminal only; plain output waits for progress)."""
        if self._tty:
            self._draw()

    def advance(self, n: int = 1, error: bool = False) -> None:
        self.done += n
        if error:
            self.errors += 1
        self._draw()

    def _draw(self) -> None:
        if self._tty:
            self.stream.write("\r" + self.text())
            self.stream.flush()
            return
        now = time.monotonic()
        pct = (100 * self.done // self.total) if self.total else 100
        # A plain line at each 10 % step, at most every `every_s` seconds, and always at the end.
        step_crossed = pct // 10 > self._last_pct // 10
        at_end = self.done >= self.total
        if at_end and self._ended:
            return
        if at_end or (step_crossed and now - self._last_line >= self.every_s):
            self.stream.write(self.text() + "\n")
            self.stream.flush()
            self._last_line = now
            self._last_pct = pct
            self._ended = at_end

    def finish(self) -> None:
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()


