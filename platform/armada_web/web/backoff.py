"""Trying a call again with back-off: one loop for the database (`jobs.leases.retrying`) and the
Docker engine (`games.runner.wait_for_sandbox`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def with_backoff(call: Callable[[], T], *, again: Callable[[Exception], bool], within_s: float, first_s: float,
                 cap_s: float, before_next: Callable[[Exception, float], None]) -> T:
    """`call()`; when it raises an exception `again` accepts, `before_next(exc, pause)` (say it, close
    what must be opened anew), a pause, and again, the pause doubling from `first_s` up to `cap_s`,
    for up to `within_s` seconds; any other exception, or the last, is raised."""
    deadline = time.monotonic() + within_s
    pause = first_s
    while True:
        try:
            return call()
        except Exception as exc:
            if not again(exc) or time.monotonic() + pause > deadline:
                raise
            before_next(exc, pause)
            time.sleep(pause)
            pause = min(pause * 2, cap_s)
