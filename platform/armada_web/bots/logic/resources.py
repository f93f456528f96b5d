"""What a version used in its validation game against its budgets (`BotVersion.resources`).

`GET /api/versions/{id}/` shows it as `"resources": {"init_ms", "init_budget_ms",
"memory_peak_mib", "memory_limit_mib"}` and the version's page beside it, so a competitor sees
how close to the edge a bot is before it plays (docs/bots-environment.md, "Budgets").
A value the sandbox could not measure is None (e.g. a bot gone before init: no time; the cgroup out
of the worker's sight: no peak).
"""

from __future__ import annotations

from typing import Any

from armada.sizes import MIB
from armada.timings import seat_times

#: The keys of `resources`, in the order the API and the page show them.
KEYS = ("init_ms", "init_budget_ms", "memory_peak_mib", "memory_limit_mib")


#: Statuses of a bot that never answered the request it ended at: when that was init, the time
#: the referee measured is not an init time (for a timeout it is the budget it waited out).
GONE = ("crashed", "memory", "timeout")


def resources_used(*, replay: dict[str, Any] | None, seat: int, status: str, memory_peak_bytes: int | None,
                   init_budget_ms: int, memory_limit_mib: int) -> dict[str, int | None]:
    """The resources of `seat` (its validation `status`): its init time (the replay's timings; None
    when it crashed or ran out of memory before answering init), its memory peak, and both budgets."""
    times = seat_times(replay, seat)
    init = next((t for t in times if t.id == 0), None)
    if status in GONE and len(times) == 1:  # it went at its first request: init was never answered
        init = None
    return {
        "init_ms": round(init.ms) if init is not None else None,
        "init_budget_ms": int(init_budget_ms),
        "memory_peak_mib": None if memory_peak_bytes is None else -(-int(memory_peak_bytes) // MIB),
        "memory_limit_mib": int(memory_limit_mib),
    }


def shown(resources: dict[str, Any] | None) -> dict[str, int | None]:
    """`resources` with every key present (a version validated before they were kept: all None)."""
    source = resources or {}
    return {key: source.get(key) for key in KEYS}
