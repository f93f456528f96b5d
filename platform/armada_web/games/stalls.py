"""How long this process did not run while it played a game: stopped (SIGSTOP, a paused VM) or
starved (a host swapping hard).

The referee times each reply by the wall clock, so a stopped worker charges the time it did not
run to the bot's time bank: a reliability trial stopped a match worker for 30 s (under the
heartbeat's 60 s, so nothing was reaped) and the bot got a timeout and a rated loss; a validation
stopped so made an upload `invalid`. A daemon thread ticks every TICK_S; a gap between two ticks
longer than STALL_S means the process did not run. `stalled_since(t)` sums those gaps since
monotonic time `t`, the one going on too (the thread may not have run yet since the process
came back). One watch per process (a forked worker child makes its own: threads do not fork).
"""

from __future__ import annotations

import collections
import os
import threading
import time

#: Seconds between two ticks of the watch.
TICK_S = 0.25
#: A gap between ticks longer than this is a stall (far past any scheduling delay of a busy host).
STALL_S = 2.0
#: Seconds a game's end (its `end` messages, closing the bots) may take after its last request.
CLOSING_S = 10.0


class _Watch:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.last = time.monotonic()
        self.gaps: collections.deque[tuple[float, float]] = collections.deque(maxlen=256)  # (start, end)
        threading.Thread(target=self._run, daemon=True, name="armada-stall-watch").start()

    def _run(self) -> None:
        while True:
            time.sleep(TICK_S)
            now = time.monotonic()
            with self.lock:
                if now - self.last > STALL_S:
                    self.gaps.append((self.last, now))
                self.last = now

    def stalled_since(self, since: float) -> float:
        now = time.monotonic()
        with self.lock:
            spans = [*self.gaps, (self.last, now)] if now - self.last > STALL_S else list(self.gaps)
        return sum(end - max(start, since) for start, end in spans if end > since)


_watch: _Watch | None = None
_made = threading.Lock()


def watch() -> _Watch:
    """This process's watch, started on first use."""
    global _watch
    with _made:
        if _watch is None or _watch.pid != os.getpid():
            _watch = _Watch()
        return _watch


def stalled_since(since: float) -> float:
    """Seconds this process did not run since monotonic time `since` (0.0 when it ran throughout).
    Call `watch()` before `since` so that the watch is running."""
    return watch().stalled_since(since)
