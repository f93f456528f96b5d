"""The events' formats, the pure part: a round robin's games in order, and the table's order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def round_robin(ids: Sequence[int], games_per_pair: int) -> list[tuple[int, int]]:
    """Every pair of `ids` meets `games_per_pair` times, as (first seat, second seat), in rounds of
    the circle method (each entry plays once a round, one sits out when the count is odd), the
    rounds repeated with the sides swapped, so a pair's sides alternate game by game."""
    players: list[int | None] = list(ids)
    if len(players) < 2:
        return []
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds: list[list[tuple[int, int]]] = []
    ring = players[1:]
    for r in range(n - 1):
        circle = [players[0], *ring]
        pairs = []
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if a is None or b is None:
                continue
            pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        ring = ring[-1:] + ring[:-1]
    out: list[tuple[int, int]] = []
    for k in range(games_per_pair):
        for pairs in rounds:
            out += [(a, b) if k % 2 == 0 else (b, a) for a, b in pairs]
    return out


def points(wins: int, draws: int) -> int:
    """An event table's points: 3 a win, 1 a draw."""
    return 3 * wins + draws


def table_key(entry: Any) -> tuple[Any, ...]:
    """The table's order: points, then wins, then fewer losses, then the earlier entry."""
    return (-entry.points, -entry.wins, entry.losses, entry.created, entry.pk)
