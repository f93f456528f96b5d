"""Mothership Down speed: a full league of 1,000 random valid races (499,500 battles).

Prints the league's time and battles per second, the round-by-round simulator's speed on a
sample for comparison, and the target line `mothership-league-seconds` (bound: 120 s).
`bench/engines.py` calls `run(print)`; `python bench/_mothership.py` runs it alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from armada.games.mothership import Race, league, random_orders, simulate
from armada.games.rng import Rng

RACES = 1000
LEAGUE_BOUND_SECONDS = 120.0
SAMPLE_BATTLES = 5000


def run(out: Callable[[str], object] = print) -> list[str]:
    """Measure, print the figures, and return the target lines."""
    rng = Rng(2007)
    races = [Race(f"race-{i}", random_orders(rng), submitted=i) for i in range(RACES)]
    battles = RACES * (RACES - 1) // 2

    start = time.perf_counter()
    table = league(races)
    league_seconds = time.perf_counter() - start
    assert len(table) == RACES and table[0].played == RACES - 1

    start = time.perf_counter()
    for i in range(SAMPLE_BATTLES):
        simulate(races[i % RACES].orders, races[(i * 7 + 1) % RACES].orders)
    simulate_rate = SAMPLE_BATTLES / (time.perf_counter() - start)

    out(f"mothership league: {RACES} races, {battles} battles in {league_seconds:.2f} s "
        f"({battles / league_seconds:,.0f} battles/s with the fast battle)")
    out(f"mothership round-by-round simulator (with events): {simulate_rate:,.0f} battles/s "
        f"on {SAMPLE_BATTLES} battles; a league with it would take ~{battles / simulate_rate:.0f} s")
    verdict = "ok" if league_seconds <= LEAGUE_BOUND_SECONDS else "short"
    return [f"target mothership-league-seconds: {league_seconds:.2f} <= {LEAGUE_BOUND_SECONDS:g} {verdict}"]


if __name__ == "__main__":
    for line in run(print):
        print(line)
