"""Atomic counters over a sliding window, shared by every web process (the cache: Redis).

A count for a name lives in one cache key per window of `window_s` seconds, created with
`add` (SET NX with an expiry) and raised with `incr` (Redis INCR, atomic): parallel requests
from any process each get their own number. The count over the last `window_s` seconds is
estimated from the current window and the previous one, weighted by how much of it is still
inside the sliding window. `hit` counts and returns the new count, `undo` takes one back (a
refused request or a successful log-in), `peek` only reads. When the cache does not answer
(Redis down) the counters answer 0: the site keeps serving, unthrottled, and logs it.
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

#: What a cache that does not answer raises (Redis down, a timeout).
_DOWN = (RedisError, OSError)


def _key(name: str, window_s: int, index: int) -> str:
    return f"count:{name}:{window_s}:{index}"


def _estimate(name: str, window_s: int, now: float, current: int) -> float:
    index = int(now // window_s)
    previous = int(cache.get(_key(name, window_s, index - 1)) or 0)
    return current + previous * (1 - (now % window_s) / window_s)


def hit(name: str, window_s: int) -> float:
    """Count one for `name` now; the count over the last `window_s` seconds, this one included."""
    now = time.time()
    key = _key(name, window_s, int(now // window_s))
    try:
        for _attempt in range(3):
            cache.add(key, 0, timeout=2 * window_s + 1)
            try:
                current = int(cache.incr(key))
            except ValueError:  # expired between add and incr: add it again
                continue
            return _estimate(name, window_s, now, current)
    except _DOWN as exc:
        log.warning("counter %s not counted: the cache does not answer (%s)", name, exc)
    return 0.0


def undo(name: str, window_s: int) -> None:
    """Take back one `hit` of `name` (in the current window)."""
    key = _key(name, window_s, int(time.time() // window_s))
    try:
        cache.decr(key)
    except (ValueError, *_DOWN):  # gone already (expired, or the cache is down): nothing to take back
        return


def peek(name: str, window_s: int) -> float:
    """The count of `name` over the last `window_s` seconds, without counting."""
    now = time.time()
    try:
        current = int(cache.get(_key(name, window_s, int(now // window_s))) or 0)
        return _estimate(name, window_s, now, current)
    except _DOWN as exc:
        log.warning("counter %s not read: the cache does not answer (%s)", name, exc)
        return 0.0


def seconds_left(window_s: int) -> float:
    """Seconds until the current window ends (an upper bound of a refused client's wait)."""
    return window_s - time.time() % window_s
