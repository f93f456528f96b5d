"""Orders used by the Mothership Down tests, and a hypothesis strategy for arbitrary orders."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from armada.games.mothership import FighterOrders, MothershipConfig, RaceOrders

#: A config where any in-range allocation is within budget (5 x 40 + 50), so strategies need no filtering.
ROOMY = MothershipConfig(total_points=250)


def ziltoidians() -> dict[str, Any]:
    """The seed's example race (MD-9)."""
    return {
        "mothership": {"defence": 40},
        "fighters": [{"attack": 7, "defence": 5, "pattern": [2, 2, 3]} for _ in range(5)],
    }


def race(mothership: int, *fighters: tuple[int, int, list[int]]) -> RaceOrders:
    """Orders from (attack, defence, pattern) triples; missing fighters get (1, 20, [1])."""
    full = list(fighters) + [(1, 20, [1])] * (5 - len(fighters))
    return RaceOrders(mothership, tuple(FighterOrders(a, d, tuple(p)) for a, d, p in full))


fighter_strategy = st.builds(
    FighterOrders,
    st.integers(1, 20),
    st.integers(1, 20),
    st.lists(st.integers(1, 25), min_size=1, max_size=6).map(tuple),
)
orders_strategy = st.builds(
    RaceOrders,
    st.integers(1, 50),
    st.lists(fighter_strategy, min_size=5, max_size=5).map(tuple),
)
