"""`web.locks.one_at_a_time`: one holder at a time, and a holder past its time never frees the
lock of the process that took it after (an exactly-once review)."""

from __future__ import annotations

from django.core.cache import cache

from armada_web.web.locks import one_at_a_time


def test_one_holder_at_a_time_and_the_lock_goes_after():
    with one_at_a_time("test:lock", 60) as first:
        with one_at_a_time("test:lock", 60) as second:
            assert first and not second
        assert cache.get("test:lock") is not None  # the refused one let nothing go
    assert cache.get("test:lock") is None
    with one_at_a_time("test:lock", 60) as again:
        assert again


def test_the_slow_holder_ending_first_keeps_the_next_holders_lock():
    outer = one_at_a_time("test:order", 60)
    assert outer.__enter__()
    cache.delete("test:order")  # expired
    inner = one_at_a_time("test:order", 60)
    assert inner.__enter__()
    outer.__exit__(None, None, None)  # the slow one ends while the next holds the lock
    assert cache.get("test:order") is not None  # still the next holder's
    inner.__exit__(None, None, None)
    assert cache.get("test:order") is None
