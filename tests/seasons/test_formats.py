"""The events' formats (armada_web.events.logic.formats): a round robin's games, the table's points."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from armada_web.events.logic import formats


@given(st.integers(2, 12), st.integers(1, 4))
def test_every_pair_meets_its_games_with_sides_alternating(n, per_pair):
    ids = list(range(1, n + 1))
    games = formats.round_robin(ids, per_pair)
    pairs = Counter(frozenset(g) for g in games)
    assert len(games) == n * (n - 1) // 2 * per_pair
    assert set(pairs.values()) == {per_pair} and len(pairs) == n * (n - 1) // 2
    for pair in pairs:
        sides = [g for g in games if frozenset(g) == pair]
        assert all(a != b for a, b in itertools.pairwise(sides))  # alternating
    round_size = n // 2
    for start in range(0, n * (n - 1) // 2, round_size):  # within a round nobody plays twice
        chunk = games[start:start + round_size]
        seats = [s for g in chunk for s in g]
        if len(chunk) == round_size and n % 2 == 0:
            assert len(seats) == len(set(seats))


def test_points_are_three_a_win_one_a_draw():
    assert formats.points(2, 1) == 7
    assert formats.round_robin([5], 3) == []
