"""Brute-force protection for password checks, shared by the log-in page and the token API.

Failed attempts are counted per address and per username in the cache (Redis by default,
so every web process sees the same counts) over a sliding window; past either limit, every
attempt is refused with a message saying how long to wait, even with the right password.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache


@dataclass(frozen=True)
class Limit:
    """At most `count` failures per `window_s` seconds for one key."""

    scope: str
    count: int
    window_s: int


def limits() -> list[Limit]:
    config = settings.ARMADA
    window = config.login_failure_window_s
    return [Limit("ip", config.login_failures_per_ip, window), Limit("user", config.login_failures_per_user, window)]


def client_ip(request: Any) -> str:
    """The client's address (REMOTE_ADDR; a proxy in front must set it, see docs/operations.md)."""
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def _keys(request: Any, username: str) -> dict[str, str]:
    return {"ip": f"login-fail:ip:{client_ip(request)}", "user": f"login-fail:user:{username.strip().lower()[:150]}"}


def _recent(key: str, window_s: int, now: float) -> list[float]:
    return [t for t in cache.get(key, []) if t > now - window_s]


def login_refusal(request: Any, username: str) -> str | None:
    """None when a password attempt is allowed now, else the message to show."""
    now = time.time()
    keys = _keys(request, username)
    for limit in limits():
        recent = _recent(keys[limit.scope], limit.window_s, now)
        if len(recent) >= limit.count:
            wait_s = recent[0] + limit.window_s - now
            minutes = max(1, round(wait_s / 60))
            who = "from your address" if limit.scope == "ip" else "for this username"
            return (f"too many failed log-in attempts {who}; try again in about {minutes} "
                    f"minute{'s' if minutes != 1 else ''}")
    return None


def record_failure(request: Any, username: str) -> None:
    """Count one failed password attempt against the address and the username."""
    now = time.time()
    keys = _keys(request, username)
    for limit in limits():
        recent = _recent(keys[limit.scope], limit.window_s, now)
        recent.append(now)
        cache.set(keys[limit.scope], recent[-limit.count:], limit.window_s)
