"""`web.backoff.with_backoff`: the one retry loop of the database's and the Docker engine's waits."""

from __future__ import annotations

import pytest

from armada_web.web import backoff


def test_pauses_double_up_to_the_cap_and_other_errors_are_raised_at_once(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(backoff.time, "sleep", slept.append)
    said: list[float] = []
    tries = iter([ConnectionError("down")] * 5 + ["up"])

    def call() -> str:
        got = next(tries)
        if isinstance(got, Exception):
            raise got
        return got

    assert backoff.with_backoff(call, again=lambda exc: isinstance(exc, ConnectionError), within_s=60, first_s=0.5,
                                cap_s=3.0, before_next=lambda exc, pause: said.append(pause)) == "up"
    assert slept == said == [0.5, 1.0, 2.0, 3.0, 3.0]
    with pytest.raises(KeyError):  # not one `again` accepts: no pause
        backoff.with_backoff(lambda: {}["x"], again=lambda exc: isinstance(exc, ConnectionError), within_s=60,
                             first_s=0.5, cap_s=3.0, before_next=lambda exc, pause: None)
    assert len(slept) == 5


def test_it_gives_up_when_the_next_pause_would_pass_the_deadline(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(backoff.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(backoff.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))

    def down() -> None:
        raise ConnectionError("still down")

    with pytest.raises(ConnectionError, match="still down"):
        backoff.with_backoff(down, again=lambda exc: True, within_s=4, first_s=1, cap_s=10,
                             before_next=lambda exc, pause: None)
    assert clock[0] == 103.0  # 1 + 2 slept; the next pause (4) would pass 104
