"""One run at a time across the workers: a lock in the shared cache (Redis in production).

`one_at_a_time(key, seconds)` holds `key` for the block when no other process holds it, and
lets it go after; `seconds` bounds a lock whose holder died mid-run (set it past the run's own
time limit). What the other runs do meanwhile (skip, send themselves again later) is the caller's.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.cache import cache


@contextmanager
def one_at_a_time(key: str, seconds: float) -> Iterator[bool]:
    """True inside the block when this process took `key` (and lets it go after), False when
    another process holds it."""
    mine = secrets.token_hex(8)
    held = bool(cache.add(key, mine, seconds))
    try:
        yield held
    finally:
        # Only while it is still ours: past `seconds` another process may hold it now. (A get, then
        # a delete: the gap between them is far shorter than any lock's time.)
        if held and cache.get(key) == mine:
            cache.delete(key)
