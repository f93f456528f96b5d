"""Each request's time, per seat: the replay's `timings` field (docs/replay-format.md).

The referee writes, besides the match's time limits, one record per seat: every request's
milliseconds (index = request id, 0 is `init`), the bank left after it (whole milliseconds),
and the ids of the requests that timed out. Older replays hold only a list of milliseconds per
seat; `seat_times` reads both, so every reader (logs, summaries, re-runs, the site) asks here.
The viewer's `timing.js` reads the same two shapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Keys of the current `timings` object (an older one maps seats straight to lists of milliseconds).
LIMITS = "limits"
SEATS = "seats"


@dataclass(frozen=True)
class RequestTime:
    """One request's time: its id, milliseconds, bank left after it (None: not recorded), timeout."""

    id: int
    ms: float
    bank_ms: int | None = None
    timeout: bool = False


def timings_field(limits: dict[str, int], seats: dict[int, list[RequestTime]]) -> dict[str, Any]:
    """The replay's `timings` object from the limits and each seat's requests (in id order)."""
    return {
        LIMITS: dict(limits),
        SEATS: {str(seat): {"ms": [t.ms for t in times],
                            "bank_ms": [t.bank_ms for t in times],
                            "timeouts": [t.id for t in times if t.timeout]}
                for seat, times in sorted(seats.items())},
    }


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def seat_times(replay: dict[str, Any] | None, seat: int) -> list[RequestTime]:
    """A seat's requests with their times, from either shape of `timings` (empty when absent)."""
    timings = (replay or {}).get("timings")
    if not isinstance(timings, dict):
        return []
    if isinstance(timings.get(SEATS), dict):
        record = timings[SEATS].get(str(seat))
        if not isinstance(record, dict) or not isinstance(record.get("ms"), list):
            return []
        raw_banks = record.get("bank_ms")
        banks: list[Any] = raw_banks if isinstance(raw_banks, list) else []
        timeouts = {t for t in record.get("timeouts") or [] if isinstance(t, int)}
        times = []
        for index, ms in enumerate(record["ms"]):
            bank = _number(banks[index]) if index < len(banks) else None
            times.append(RequestTime(index, _number(ms) or 0.0, None if bank is None else int(bank),
                                     index in timeouts))
        return times
    old = timings.get(str(seat))
    if not isinstance(old, list):
        return []
    times = [RequestTime(index, _number(ms) or 0.0) for index, ms in enumerate(old)]
    if times and _seat_status(replay, seat) == "timeout":  # older replays: the last request timed out
        times[-1] = RequestTime(times[-1].id, times[-1].ms, None, True)
    return times


def _seat_status(replay: dict[str, Any] | None, seat: int) -> str:
    for entry in (replay or {}).get("seats") or []:
        if isinstance(entry, dict) and entry.get("seat") == seat:
            return str(entry.get("status") or "")
    return ""


def recorded_limits(replay: dict[str, Any] | None) -> dict[str, int] | None:
    """The time limits the match was played with (None: an older replay that did not record them)."""
    timings = (replay or {}).get("timings")
    limits = timings.get(LIMITS) if isinstance(timings, dict) else None
    if not isinstance(limits, dict):
        return None
    kept = {k: v for k, v in limits.items() if isinstance(v, int) and not isinstance(v, bool)}
    return kept if set(kept) == {"init_ms", "turn_ms", "bank_ms"} else None


def bank_sent(replay: dict[str, Any] | None, seat: int, request_id: int) -> int | None:
    """The `bank_ms` request `request_id` carried: the bank left after the request before it."""
    times = seat_times(replay, seat)
    if request_id < 1 or request_id > len(times):
        return None
    return times[request_id - 1].bank_ms


def totals(replay: dict[str, Any] | None, seat: int) -> dict[str, Any] | None:
    """`{"total_ms", "max_ms", "max_request", "timeouts"}` of a seat over all its requests: `max_request`
    is the slowest request's id (0: init, whose budget is larger than a turn's); None: no timings."""
    times = seat_times(replay, seat)
    if not times:
        return None
    slowest = max(times, key=lambda t: t.ms)
    return {"total_ms": round(sum(t.ms for t in times), 1), "max_ms": round(slowest.ms, 1),
            "max_request": slowest.id, "timeouts": sum(1 for t in times if t.timeout)}
