"""Calls made at the same moment, each on a thread of its own with its own database connection
(closed when it ends): what two people clicking at once do (tests of races and limits)."""

from __future__ import annotations

import threading
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
