"""A finished game applied to its two sides, the one way for the ladder, a season's finals and
private events: both skills moved in seat order (`ratings.after_game`) and each side's game, win,
draw and loss counted. The callers (`ladder.ratings.advance`, `seasons.finals.count_game`,
`events.services.count_game`) pass their own rows; what differs is only the dynamics term (none
in the finals: the entries are frozen) and whether the game moves a rating at all (a round-robin
event's table counts points only).
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from armada_web.ladder.logic.ratings import TAU, Skill, after_game, win_chance


class Side(Protocol):
    """One side of a game as it is counted: a skill and its record."""

    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int


class Change(NamedTuple):
    """A side's skill before and after the game, and its expected result: the model's chance,
    before the game, that this side wins (`ratings.win_chance`)."""

    before: Skill
    after: Skill
    expected: float


def apply_game(first: Side, second: Side, winner: int | None, *, tau: float = TAU,
               rated: bool = True) -> tuple[Change, Change]:
    """Count one game between `first` (seat 1) and `second` (seat 2) that `winner` (1, 2 or None: a
    draw) won, in place; returns each seat's `Change` (before and after equal when not `rated`)."""
    before = (Skill(first.mu, first.sigma), Skill(second.mu, second.sigma))
    after = after_game(before[0], before[1], winner, tau=tau) if rated else before
    expected = win_chance(before[0], before[1])
    for seat, side, new in ((1, first, after[0]), (2, second, after[1])):
        side.mu, side.sigma = new.mu, new.sigma
        side.games += 1
        if winner is None:
            side.draws += 1
        elif winner == seat:
            side.wins += 1
        else:
            side.losses += 1
    return Change(before[0], after[0], expected), Change(before[1], after[1], 1.0 - expected)
