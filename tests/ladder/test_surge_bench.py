"""A small run of bench/surge.py's deadline day, so the benchmark keeps working, and the queue rule
it relies on: challenges and event matches keep their share whatever the ranked matchmaker does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import surge


@pytest.fixture
def small(monkeypatch):
    for name, value in (("WORKERS", 4), ("WARMUP", 1200.0), ("ARRIVALS", 1200.0), ("WINDOW", 2 * 3600.0),
                        ("LIMIT", 4 * 3600.0), ("EVENT_MATCHES", 40), ("EVENT_START", 600.0)):
        monkeypatch.setattr(surge, name, value)


def test_new_versions_settle_sooner_than_first_come_first_served(small) -> None:
    day = surge.Day.make(seed=1, established=60, new=15)
    armada, fifo = (surge.Run(day, fifo=f).go() for f in (False, True))
    assert len(armada.settled) == len(fifo.settled) == 15
    p90 = {k: surge.percentile(list(r.settled.values()), 0.9) for k, r in (("a", armada), ("f", fifo))}
    assert p90["a"] < p90["f"]
    # established bots still play: no gap beyond a few times first come first served's
    assert surge.percentile(surge.gaps(armada), 0.99) < 3 * surge.percentile(surge.gaps(fifo), 0.99)
    assert armada.estimates_next and armada.estimates_settled


def test_challenges_and_events_keep_their_share(small) -> None:
    """The workers take challenges, events and ranked matches round robin (jobs.queue_order): the
    ranked matchmaker changes which ranked matches are played, never how many of the others."""
    day = surge.Day.make(seed=2, established=60, new=15)
    armada, fifo = (surge.Run(day, fifo=f).go() for f in (False, True))
    for kind in ("challenges", "events"):
        assert armada.kinds[kind] == fifo.kinds[kind] > 0
    for run in (armada, fifo):  # a challenge waits for about the end of a match or two, rarely more
        assert surge.percentile(run.challenge_waits, 0.9) <= 2 * surge.MATCH_SECONDS


def test_the_bench_prints_its_target_lines(small) -> None:
    lines: list[str] = []
    targets = surge.run(seeds=1, established=40, new=10, out=lines.append)
    assert [t.split(":")[0] for t in targets] == [
        "target surge-new-p90-vs-fifo", "target surge-established-gap-p99-vs-fifo", "target eta-median-error"]
    assert all(t.endswith((" ok", " short")) for t in targets)
