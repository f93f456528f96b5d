"""Each rated seat's rating change, read from a match's two seats (no query of its own: the seats
come prefetched with their match), for the API and the pages; the wording is `logic.explain`'s.

A seat is rated when both seats kept their skills before and after (the ladder's ranked games and
a season's finals; challenges and events keep none). The expected result is the one kept when
the game was counted, else (matches counted before it was kept) computed from the two skills
before the game, which gives the same figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from armada_web.ladder.logic.explain import SeatRating, explain, seat_rating
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


def rating_line(seats: Sequence[Participant], seat: int) -> str | None:
    """Seat `seat`'s rating change in words, or None (not rated, or no result)."""
    rated = seat_ratings(seats)
    p = next((p for p in seats if p.seat == seat), None)
    if seat not in rated or p is None or not p.result:
        return None
    return explain(rated[seat], p.result)


def lines_for_bot(matches: Iterable[Match], bot_id: int) -> dict[int, str]:
    """{match id: the rating line of `bot_id`'s seat} for the rated ones among `matches` (participants
    prefetched); a match the bot played both seats of shows seat 1's."""
    out: dict[int, str] = {}
    for match in matches:
        seats = list(match.participants.all())
        mine = next((p.seat for p in seats if p.bot_id == bot_id), None)
        line = rating_line(seats, mine) if mine is not None else None
        if line is not None:
            out[match.pk] = line
    return out
