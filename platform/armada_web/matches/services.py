"""Creating matches and voiding them (matchmaking, challenges and staff call these)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from armada.ratings import Skill
from armada_web.bots.models import BotVersion
from armada_web.matches import tallies
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant
from armada_web.matches.signals import match_voided
from armada_web.matches.tasks import send


def new_seed() -> int:
    """A server-chosen seed (63 bits)."""
    return secrets.randbits(63)


def create_match(*, game: str, first: BotVersion, second: BotVersion, kind: str = MatchKind.RANKED,
                 requested_by: Any = None, seed: int | None = None, counted: bool = True) -> Match:
    """A queued match with `first` at seat 1 and `second` at seat 2 (both bots' kept tallies count it
    unless not `counted`: a private event's match, `tallies`); sent to its queue on commit."""
    with transaction.atomic():
        match = Match.objects.create(game=game, seed=new_seed() if seed is None else seed, kind=kind,
                                     status=MatchStatus.QUEUED, queued=timezone.now(), requested_by=requested_by)
        seats = Participant.objects.bulk_create([
            Participant(match=match, version=first, bot_id=first.bot_id, opponent_id=second.bot_id,
                        name=first.bot.name, seat=1),
            Participant(match=match, version=second, bot_id=second.bot_id, opponent_id=first.bot_id,
                        name=second.bot.name, seat=2),
        ])
        if counted:
            tallies.count_made(seats=seats)
        transaction.on_commit(lambda: send(match.pk, kind), robust=True)
    return match


def void_by_staff(*, match: Match, reason: str) -> bool:
    """Staff: a match counts for nothing (void, with the reason). A running one cannot record any
    more (its worker's attempt no longer holds the row); the apps above undo what a finished one
    counted for (`match_voided`: the ladder recomputes the ratings without it, a running event its
    table; a counted finals game stays, docs/seasons.md). False when it was void already."""
    with transaction.atomic():
        was = Match.objects.select_for_update().filter(pk=match.pk).values_list("status", "kind").first()
        if was is None or was[0] == MatchStatus.VOID:
            return False
        Match.objects.filter(pk=match.pk).update(status=MatchStatus.VOID, reason=f"voided by staff: {reason}"[:500],
                                                 finished=match.finished or timezone.now())
        if was[0] == MatchStatus.FINISHED:  # its result no longer counts in the kept tallies
            tallies.count_result(seats=list(Participant.objects.filter(match_id=match.pk)), sign=-1)
        match_voided.send(sender=Match, match=match, was=was)
    return True


def cancel_queued(*, match_ids: list[int], reason: str) -> int:
    """Matches no longer wanted (their season or event ended) that no worker has taken yet become
    void with `reason` (a conditional update: one a worker claimed meanwhile plays on); returns how
    many. A message still in the queue then finds the row no longer queued and does nothing."""
    if not match_ids:
        return 0
    return Match.objects.filter(pk__in=match_ids, status=MatchStatus.QUEUED).update(
        status=MatchStatus.VOID, reason=reason[:500], finished=timezone.now())


#: The fields `keep_seat_skills` writes.
SEAT_SKILL_FIELDS = ["mu_before", "sigma_before", "mu_after", "sigma_after", "expected"]


def set_seat_skills(*, seat: Participant, change: tuple[Skill, Skill, float]) -> None:
    """`seat`'s skill before and after its game and its expected result, in memory (unsaved)."""
    before, after, expected = change
    seat.mu_before, seat.sigma_before, seat.mu_after, seat.sigma_after = before.mu, before.sigma, after.mu, after.sigma
    seat.expected = expected


def keep_seat_skills(*, seats: list[Participant], changes: Mapping[int, tuple[Skill, Skill, float]]) -> None:
    """Each seat keeps its skill before and after its game and its expected result (`changes`:
    {seat: (before, after, the model's chance it wins)}, `ladder.logic.results.Change`), inside the
    recording transaction; the ladder and the finals both call this."""
    for p in seats:
        set_seat_skills(seat=p, change=changes[p.seat])
        p.save(update_fields=SEAT_SKILL_FIELDS)
