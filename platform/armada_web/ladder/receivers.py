"""How the ladder follows the apps below it (connected in LadderConfig.ready()).

- A ranked match of a rated game was recorded: `ratings.rate_match` moves both versions' ratings, in the recording
  transaction, and each seat keeps its rating before and after; once committed, a matchmaking
  tick is asked for (`tasks.top_up`: the worker that played it is free now).
- Staff voided a finished ranked match: every rating is recomputed without it.
- A bot's playing version may have changed: a rated game's ratings follow in the same
  transaction (`playing.follow`: the ladder and matchmaking read the flag it keeps), and the
  league of its game is brought in line once the change is committed.
- A team was archived or restored: its bots stopped or started playing, so each follows as when
  its playing version changed (in the archive's transaction: matchmaking never pairs an archived
  team's bot, and a restored team's bots are on the ladder at once, not at the next repair).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from armada.referee.match import MatchOutcome
from armada_web.bots.models import Bot
from armada_web.bots.signals import active_version_changed
from armada_web.games import Ranking, spec
from armada_web.ladder import league, playing, ratings, tasks
from armada_web.ladder.recompute import recompute
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant
from armada_web.matches.signals import match_recorded, match_voided
from armada_web.teams.models import Team
from armada_web.teams.signals import archive_changed


def rate_ranked_match(sender: Any, match: Match, seats: list[Participant], outcome: MatchOutcome,
                      **_: Any) -> None:
    if match.kind == MatchKind.RANKED and spec(match.game).rated:
        ratings.rate_match(match=match, seats=seats, outcome=outcome)
        transaction.on_commit(tasks.top_up, robust=True)


def unrate_voided_match(sender: Any, match: Match, was: tuple[str, str], **_: Any) -> None:
    if was == (MatchStatus.FINISHED, MatchKind.RANKED):
        recompute()


def follow_active_version(sender: Any, bot: Bot, **_: Any) -> None:
    if spec(bot.game).rated:
        playing.follow(bot=bot)  # cheap, and the ladder must never list a version that stopped playing
    if spec(bot.game).ranking is Ranking.LEAGUE:
        transaction.on_commit(league.sync_league, robust=True)


def follow_team(sender: Any, team: Team, **_: Any) -> None:
    games = set()
    for bot in Bot.objects.filter(team_id=team.pk).order_by("pk"):
        if spec(bot.game).rated:
            playing.follow(bot=bot)
        games.add(spec(bot.game).ranking)
    if Ranking.LEAGUE in games:
        transaction.on_commit(league.sync_league, robust=True)


def connect() -> None:
    """Connect the receivers (idempotent: each has a dispatch uid)."""
    match_recorded.connect(rate_ranked_match, sender=Match, dispatch_uid="ladder.rate_ranked_match")
    match_voided.connect(unrate_voided_match, sender=Match, dispatch_uid="ladder.unrate_voided_match")
    active_version_changed.connect(follow_active_version, sender=Bot, dispatch_uid="ladder.follow_active_version")
    archive_changed.connect(follow_team, sender=Team, dispatch_uid="ladder.follow_team")
