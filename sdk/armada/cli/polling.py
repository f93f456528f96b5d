"""Waiting on the site: poll one API object until its status is final, with progress on stderr.

Used by `armada submit` (a version's validation) and `armada challenge --wait` (a match).
Network errors and 5xx answers are retried (POLL_RETRIES in a row, within the deadline); a
lasting failure or an interruption still says where the object is, so nothing is lost.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from armada.cli.client import ApiClient, RemoteError

#: Polling: the first pause, its growth, its cap (seconds).
POLL_FIRST_S = 0.25
POLL_GROWTH = 1.3
POLL_MAX_S = 5.0
#: Network errors or 5xx answers in a row tolerated while waiting.
POLL_RETRIES = 3


class StatusLine:
    """Progress while waiting: one line redrawn on a terminal, else a line per status change."""

    def __init__(self, label: str, stream: TextIO) -> None:
        self.label = label
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.last: str | None = None

    def show(self, status: str) -> None:
        if self.tty:
            elapsed = time.monotonic() - self.started
            self.stream.write(f"\r{self.label}: {status} ({elapsed:.0f} s)\033[K")
        elif status != self.last:
            self.stream.write(f"armada: {self.label}: {status}\n")
        self.stream.flush()
        self.last = status

    def done(self) -> None:
        if self.tty and self.last is not None:
            self.stream.write("\n")
            self.stream.flush()


@dataclass(frozen=True)
class Waiting:
    """What is waited for, in the words of the messages.

    label: `version 3`; where: `version 3 (URL)`; started: what already happened to it
    (`uploaded as`); goes_on: what continues on the site after an interruption.
    """

    label: str
    where: str
    started: str
    goes_on: str


def poll(client: ApiClient, path: str, first: dict[str, Any], final: tuple[str, ...], timeout_s: float,
         stream: TextIO, waiting: Waiting, check: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """GET `path` until its "status" is in `final` or `timeout_s` passed; returns the last answer.

    `first` is the object as known now; `check` turns an answer into the object or raises
    RemoteError (a malformed answer). Each fresh answer is merged over the previous one.
    """
    deadline = time.monotonic() + timeout_s
    line = StatusLine(waiting.label, stream)
    pause = POLL_FIRST_S
    failures = 0
    current = first
    try:
        while True:
            line.show(str(current["status"]))
            if current["status"] in final:
                return current
            left = deadline - time.monotonic()
            if left <= 0:
                return current
            time.sleep(min(pause, left))
            pause = min(pause * POLL_GROWTH, POLL_MAX_S)
            left = deadline - time.monotonic()
            try:
                fresh = client.request("GET", path, timeout=max(1.0, min(client.timeout, left)))
                current = {**current, **check(fresh)}
                failures = 0
            except RemoteError as exc:
                failures += 1
                transient = exc.status is None or exc.exit_code == 3
                if transient and time.monotonic() >= deadline:
                    raise RemoteError(f"gave up waiting after {timeout_s:g} s for {waiting.where}: {exc}",
                                      exit_code=3, status=exc.status) from None
                if not transient or failures > POLL_RETRIES:
                    raise RemoteError(f"{waiting.started} {waiting.where}, but while waiting: {exc}",
                                      exit_code=exc.exit_code, status=exc.status) from None
    except KeyboardInterrupt:
        raise RemoteError(f"interrupted; {waiting.where} {waiting.goes_on}", exit_code=130) from None
    finally:
        line.done()


#: How long `armada submit` and `armada challenge --wait` wait by default (seconds).
DEFAULT_TIMEOUT_S = 600.0


def timeout_arg(text: str) -> float:
    """argparse type for --timeout: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value
