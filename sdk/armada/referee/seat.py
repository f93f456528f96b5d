"""One seat of a match: its connection, its request ids and clock, and one timed exchange.

`ask_all` sends the requests of one step to every seat at once, each from its own thread,
so every seat is timed on its own clock. A seat whose thread does not come back (its
connection blocked while writing the request) is timed out by the caller's deadline.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from armada.games.base import Fault
from armada.logmarks import request_mark
from armada.referee.clock import BankClock, Limits
from armada.referee.connection import MAX_STALE_LINES, BotConnection, BotGone, ExitInfo, LineFlood, LineTooLong
from armada.referee.framing import ProtocolError, decode_reply, encode_message, reply_id

#: How long to wait for a bot whose output ended to report its exit (for the fault detail).
EXIT_WAIT_S = 0.5
#: Extra time the caller waits for a seat's thread beyond its hard deadline.
JOIN_SLACK_S = 1.0


@dataclass
class Exchange:
    """What one request gave: the reply (without "id") or a fault, and the time it took."""

    reply: dict[str, Any] | None = None
    fault: Fault | None = None
    elapsed_ms: float = 0.0


@dataclass
class Timing:
    """How long one request took a seat: its id, type, turn (or None), milliseconds, the bank left
    after it (whole milliseconds) and whether it timed out."""

    id: int
    type: str
    turn: int | None
    ms: float
    bank_ms: int = 0
    timeout: bool = False

    def where(self) -> str:
        """`command (turn 7)` or `init`."""
        return f"{self.type} (turn {self.turn})" if self.turn is not None else self.type


def unbracketed(where: str) -> str:
    """"command, turn 6" for a request named "command (turn 6)" (`Timing.where`), said inside brackets."""
    return re.sub(r"^(.*) \((turn \d+)\)$", r"\1, \2", where)


def describe(message: dict[str, Any]) -> str:
    """A request as faults name it: `scout (id 17, turn 9)`, `init (id 0)`."""
    turn = message.get("turn")
    where = f", turn {turn}" if isinstance(turn, int) and not isinstance(turn, bool) else ""
    return f"{message.get('type')} (id {message.get('id')}{where})"


class Seat:
    """A seat's connection, its next request id, its time bank and its fault if any."""

    def __init__(self, seat: int, conn: BotConnection, limits: Limits) -> None:
        self.seat = seat
        self.conn = conn
        self.limits = limits
        self.clock = BankClock(limits)
        self.next_id = 0
        self.name = conn.label
        self.fault: Fault | None = None
        self.started = False
        self.timings: list[Timing] = []

    def take_id(self) -> int:
        value = self.next_id
        self.next_id += 1
        return value

    def record(self, message: dict[str, Any], elapsed_ms: float, fault: Fault | None = None) -> None:
        """Keep the time a request took (the replay's `timings`, the summary's time used).

        A game request that timed out used its whole limit, turn_ms and the bank: none is left."""
        turn = message.get("turn")
        if fault is not None and fault.status == "timeout" and message.get("type") != "init":
            self.clock.spend_all()
        self.timings.append(Timing(message["id"], message["type"], turn if isinstance(turn, int) else None,
                                   round(elapsed_ms, 1), self.clock.left_ms(),
                                   fault is not None and fault.status == "timeout"))

    def charge(self, elapsed_ms: float) -> None:
        """Take an answered request's time beyond turn_ms from the bank; its timing keeps the bank left."""
        self.clock.charge(elapsed_ms)
        if self.timings:
            self.timings[-1].bank_ms = self.clock.left_ms()

    def timeout_fault(self, message: dict[str, Any], budget_ms: float) -> Fault:
        """The timeout detail, saying what the limit was made of (protocol.md, "Time")."""
        what = describe(message)
        if message["type"] == "init":
            return Fault("timeout", f"{what}: no reply within its init_ms budget of {int(budget_ms)} ms: "
                                    "its start-up took longer (imports and loading a model count), or its reply "
                                    "was written and not flushed (did it flush stdout after writing?)")
        bank = max(0, int(budget_ms) - self.limits.turn_ms)
        return Fault("timeout", f"no reply to {what} within its limit of {int(budget_ms)} ms "
                                f"(turn_ms {self.limits.turn_ms} + bank {bank} ms left)")

    def exchange(self, message: dict[str, Any], budget_ms: float) -> Exchange:
        """Send `message` (it carries its id) and wait for the matching reply within `budget_ms`."""
        what = describe(message)
        expected = message["id"]
        line = encode_message(message)
        with contextlib.suppress(Exception):  # a mark is for people; it never costs a bot its match
            self.conn.mark(request_mark(message))
        start = time.monotonic()
        deadline = start + budget_ms / 1000.0
        try:
            self.conn.send(line)
        except BotGone as exc:
            # The bot is gone before the request reached it: to its owner this is the same
            # event as exiting while it was asked, so it reads the same whatever the timing.
            return Exchange(fault=self._gone_fault(f"stopped before answering {what}", exc))
        stale = 0
        while True:
            try:
                raw = self.conn.read_line(deadline)
            except LineTooLong as exc:
                return Exchange(fault=Fault("output", f"{exc} (answering {what})"),
                                elapsed_ms=(time.monotonic() - start) * 1000.0)
            except LineFlood as exc:
                return Exchange(fault=Fault("protocol", f"{exc} (answering {what})"),
                                elapsed_ms=(time.monotonic() - start) * 1000.0)
            except BotGone as exc:  # (timed before the exit is waited for: a trial's crash read 500 ms)
                gone_ms = (time.monotonic() - start) * 1000.0
                return Exchange(fault=self._gone_fault(f"stopped before answering {what}", exc), elapsed_ms=gone_ms)
            elapsed_ms = (time.monotonic() - start) * 1000.0
            if raw is None:
                return Exchange(fault=self.timeout_fault(message, budget_ms), elapsed_ms=elapsed_ms)
            try:
                reply = decode_reply(raw)
                got = reply_id(reply)
            except ProtocolError as exc:
                if exc.line is not None:  # the line itself for its owner only: the detail is public
                    with contextlib.suppress(Exception):
                        self.conn.note(f"[armada] the reply to {what} that broke the protocol: {exc.line}")
                return Exchange(fault=Fault("protocol", f"{exc.public()} (answering {what})"), elapsed_ms=elapsed_ms)
            if got < expected:
                stale += 1  # stale: an answer to an earlier request, dropped (a bounded number of them)
                if stale > MAX_STALE_LINES:
                    return Exchange(fault=Fault("protocol", f"more than {MAX_STALE_LINES} stale replies "
                                                            f"(ids below {expected}) to {what}"),
                                    elapsed_ms=elapsed_ms)
                continue
            if got != expected:
                return Exchange(
                    fault=Fault("protocol", f"reply id {got} does not match request id {expected} ({what})"),
                    elapsed_ms=elapsed_ms,
                )
            if elapsed_ms > budget_ms:
                return Exchange(fault=self.timeout_fault(message, budget_ms), elapsed_ms=elapsed_ms)
            del reply["id"]
            return Exchange(reply=reply, elapsed_ms=elapsed_ms)

    def _gone_fault(self, what: str, exc: BotGone) -> Fault:
        info = wait_exit(self.conn)
        if info.oom_killed:
            return Fault("memory", f"{info.describe()}; {what}")
        if info.returncode is None and info.signal is None:
            return Fault("crashed", f"closed its output ({exc}); {what}")
        return Fault("crashed", f"{info.describe()}; {what}")


def wait_exit(conn: BotConnection, wait_s: float = EXIT_WAIT_S) -> ExitInfo:
    """The connection's exit information, waiting briefly for a bot whose output just ended."""
    end = time.monotonic() + wait_s
    while True:
        try:
            info = conn.exit_info()
        except Exception:  # a connection that cannot tell is treated as still running
            info = ExitInfo()
        if info.returncode is not None or info.signal is not None or info.oom_killed:
            return info
        if time.monotonic() >= end:
            return info
        time.sleep(0.01)


def ask_all(asks: dict[Seat, tuple[dict[str, Any], float]]) -> dict[Seat, Exchange]:
    """Run one exchange per seat in parallel; `asks` maps a seat to (message, budget_ms)."""
    results: dict[Seat, Exchange] = {}
    threads: dict[Seat, threading.Thread] = {}
    lock = threading.Lock()

    def work(seat: Seat, message: dict[str, Any], budget_ms: float) -> None:
        try:
            outcome = seat.exchange(message, budget_ms)
        except Exception as exc:  # a connection misbehaving must not take the referee down
            outcome = Exchange(fault=Fault("crashed", f"connection failed: {exc.__class__.__name__}: {exc}"))
        with lock:
            if seat not in results:
                results[seat] = outcome
                seat.record(message, outcome.elapsed_ms, outcome.fault)

    start = time.monotonic()
    for seat, (message, budget_ms) in asks.items():
        thread = threading.Thread(target=work, args=(seat, message, budget_ms), daemon=True,
                                  name=f"armada-seat-{seat.seat}")
        threads[seat] = thread
        thread.start()
    for seat, thread in threads.items():
        budget_ms = asks[seat][1]
        remaining = start + budget_ms / 1000.0 + JOIN_SLACK_S - time.monotonic()
        thread.join(max(0.0, remaining))
        message = asks[seat][0]
        with lock:
            if seat not in results:
                results[seat] = Exchange(fault=seat.timeout_fault(message, budget_ms), elapsed_ms=budget_ms)
                seat.record(message, budget_ms, results[seat].fault)
    with lock:
        return dict(results)
