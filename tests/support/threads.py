"""Calls made at the same moment, each on a thread of its own with its own database connection
(closed when it ends): what two people clicking at once do (tests of races and limits)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connection


def at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run `calls` together (a barrier lets them all start at once); their results, in the order
    they finished."""
    results: list[Any] = []
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results.append(call())
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def locked_then(first: Callable[[], Any], second: Callable[[], Any], *, manager: Any, method: str,
                pause: float = 0.5) -> list[tuple[str, Any]]:
    """Run `first` on a thread that, the first time it calls `manager.method` (say
    `Entry.objects.select_for_update`), stops there for `pause` seconds, while `second` runs on
    another thread: `first` holds the rows it locked before that call and `second` takes its own
    before `first` goes on (a race of two transactions, really interleaved on PostgreSQL).
    Returns each call's ("ok", result) or ("error", exception), first's then second's."""
    original = getattr(manager, method)
    holder: list[threading.Thread] = []
    reached = threading.Event()

    def slowed(*args: Any, **kwargs: Any) -> Any:
        if holder and threading.current_thread() is holder[0] and not reached.is_set():
            reached.set()
            time.sleep(pause)
        return original(*args, **kwargs)

    outcomes: dict[str, tuple[str, Any]] = {}

    def run(name: str, call: Callable[[], Any], wait: bool) -> None:
        try:
            if wait:
                reached.wait(10)
            outcomes[name] = ("ok", call())
        except Exception as exc:  # the caller asserts on it
            outcomes[name] = ("error", exc)
        finally:
            connection.close()

    setattr(manager, method, slowed)
    try:
        threads = [threading.Thread(target=run, args=("first", first, False)),
                   threading.Thread(target=run, args=("second", second, True))]
        holder.append(threads[0])
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        setattr(manager, method, original)
    return [outcomes["first"], outcomes["second"]]
