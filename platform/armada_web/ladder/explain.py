"""Each rated seat's rating change, read from a match's two seats (no query of its own: the seats
come prefetched with their match), for the API and the pages; the wording is `logic.explain`'s.

A seat is rated when both seats kept their skills before and after (the ladder's ranked games and
a season's finals; challenges and events keep none). The expected result is the one kept when
the game was counted, else (matches counted before it was kept) computed from the two skills
before the game, which gives the same figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from armada_web.ladder.logic.explain import VERBS, SeatRating, explain, seat_rating
from armada_web.ladder.logic.ratings import Skill
from armada_web.matches.models import Match, Participant


def _before(p: Participant) -> Skill | None:
    return None if p.mu_before is None or p.sigma_before is None else Skill(p.mu_before, p.sigma_before)


def _after(p: Participant) -> Skill | None:
    return None if p.mu_after is None or p.sigma_after is None else Skill(p.mu_after, p.sigma_after)


def seat_ratings(seats: Sequence[Participant]) -> dict[int, SeatRating]:
    """{seat number: its `SeatRating`} for the two seats of one match; empty when it is not rated."""
    if len(seats) != 2:
        return {}
    one, two = seats
    before = (_before(one), _before(two))
    after = (_after(one), _after(two))
    if None in before or None in after:
        return {}
    out = {}
    for p, mine, theirs, new in ((one, before[0], before[1], after[0]), (two, before[1], before[0], after[1])):
        assert mine is not None and theirs is not None and new is not None
        out[p.seat] = seat_rating(mine, new, theirs, p.expected)
    return out


@dataclass(frozen=True)
class Explained:
    """A rated seat with a result: its figures and its line of words."""

    seat: Participant
    rating: SeatRating
    line: str


def explained(seats: Sequence[Participant]) -> list[Explained]:
    """The rated seats of one match that have a result, in seat order, each with its line."""
    rated = seat_ratings(seats)
    return [Explained(p, rated[p.seat], explain(rated[p.seat], p.result, status=p.status,
                                                 opponent_status=other.status))
            for p, other in zip(seats, reversed(seats), strict=True) if p.seat in rated and p.result in VERBS]


def lines_for_bot(matches: Iterable[Match], bot_id: int) -> dict[int, str]:
    """{match id: the rating line of `bot_id`'s seat} for the rated ones among `matches` (participants
    prefetched); a match the bot played both seats of shows seat 1's."""
    out: dict[int, str] = {}
    for match in matches:
        for row in explained(list(match.participants.all())):
            if row.seat.bot_id == bot_id and match.pk not in out:
                out[match.pk] = row.line
    return out
