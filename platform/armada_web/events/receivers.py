"""How the events app follows the apps below it (connected in EventsConfig.ready()).

- An event match was recorded: `services.count_game` moves both entries' lines of the table, once,
  in the recording transaction, unless the event has finished; once committed the event plays on
  (`matchmaking.play_on`).
- A bot moves to another team (`bots.moves`): `services.check_move` refuses it while the bot is
  entered in an event not finished where the new team is in already (one bot per team).
- Staff voided a finished event match: `services.uncount_game` counts a running event's table again
  without it, and a round robin plays the game again (`matchmaking.play_on`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import pre_delete

from armada.referee.match import MatchOutcome
from armada_web.bots.models import Bot
from armada_web.bots.signals import bot_moving
from armada_web.events import matchmaking, services
from armada_web.events.access import seen_event_ids
from armada_web.matches import access as matches_access
from armada_web.matches.models import Match, MatchKind, Participant
from armada_web.matches.signals import match_recorded, match_voided
from armada_web.teams.models import Team


def count_event_match(sender: Any, match: Match, seats: list[Participant], outcome: MatchOutcome, **_: Any) -> None:
    if match.kind != MatchKind.EVENT:
        return
    event_id = services.count_game(match=match, winner=outcome.winner)
    if event_id is not None:
        transaction.on_commit(lambda: matchmaking.play_on(event_id=event_id), robust=True)


def uncount_voided_event_match(sender: Any, match: Match, was: tuple[str, str], **_: Any) -> None:
    if was[1] != MatchKind.EVENT:
        return
    event_id = services.uncount_game(match=match)
    if event_id is not None:
        transaction.on_commit(lambda: matchmaking.play_on(event_id=event_id), robust=True)


def check_bot_move(sender: Any, bot: Bot, source: Team, target: Team, **_: Any) -> None:
    services.check_move(bot=bot, target=target)


def forget_deleted_member(sender: Any, instance: Any, **_: Any) -> None:
    services.forget_member(user=instance)


def connect() -> None:
    matches_access.events_seen(seen_event_ids)  # who sees a private event's matches: the events' rule
    match_recorded.connect(count_event_match, sender=Match, dispatch_uid="events.count_event_match")
    match_voided.connect(uncount_voided_event_match, sender=Match, dispatch_uid="events.uncount_voided_event_match")
    bot_moving.connect(check_bot_move, sender=Bot, dispatch_uid="events.check_bot_move")
    pre_delete.connect(forget_deleted_member, sender=settings.AUTH_USER_MODEL, dispatch_uid="events.forget_member")
