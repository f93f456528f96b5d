"""How the seasons app follows the apps below it (connected in SeasonsConfig.ready()).

- A finals match was recorded: `finals.count_game` moves the two entries' finals ratings, once,
  in the recording transaction (the ladder's receiver ignores the kind: a finals match never
  moves the ladder), and once committed the finals move on (`services.play_on`).
- A team's members are about to change (`teams.signals.membership_changing`, in the change's
  transaction): `team_rules.check_change` refuses what a season's team rules forbid.
- An account is deleted: its username leaves the results of the teams it was in
  (`services.forget_member`).
- The match workers' share: a season in its finals claims its workers (matches.capacity).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import pre_delete

from armada.referee.match import MatchOutcome
from armada_web.matches import capacity
from armada_web.matches.models import Match, MatchKind, Participant
from armada_web.matches.signals import match_recorded
from armada_web.seasons import finals, services, team_rules
from armada_web.teams.models import Team
from armada_web.teams.signals import membership_changing


def rate_finals_match(sender: Any, match: Match, seats: list[Participant], outcome: MatchOutcome, **_: Any) -> None:
    if match.kind != MatchKind.FINALS:
        return
    season_id = finals.count_game(match=match, seats=seats, winner=outcome.winner)
    if season_id is not None:
        transaction.on_commit(lambda: services.play_on(season_id=season_id), robust=True)


def check_team_change(sender: Any, team: Team, user_id: int, change: str, **_: Any) -> None:
    team_rules.check_change(team=team, user_id=user_id, change=change)


def forget_deleted_member(sender: Any, instance: Any, **_: Any) -> None:
    services.forget_member(user=instance)


def connect() -> None:
    """Connect the receivers and register the finals' claim on the workers (idempotent)."""
    match_recorded.connect(rate_finals_match, sender=Match, dispatch_uid="seasons.rate_finals_match")
    membership_changing.connect(check_team_change, sender=Team, dispatch_uid="seasons.check_team_change")
    pre_delete.connect(forget_deleted_member, sender=settings.AUTH_USER_MODEL, dispatch_uid="seasons.forget_member")
    capacity.claim(MatchKind.FINALS, finals.claimed_workers)
