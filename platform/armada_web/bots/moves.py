"""Moving a bot to another team (issue 26): a bot of a personal team moves to a team its owner is
in, with everything it has (its id, URL, versions, ratings, matches and results are the bot's and
stay); a bot of a shared team stays with it, since no one member alone may take it away."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from armada_web.bots.access import check_owner
from armada_web.bots.models import Bot, Game
from armada_web.bots.signals import bot_moving
from armada_web.teams.access import is_member
from armada_web.teams.models import Team
from armada_web.teams.queries import teams_of
from armada_web.teams.services import get_team
from armada_web.web.errors import Conflict, DomainError, Forbidden, Invalid, NotFound


def move_refusal(*, bot: Bot, source: Team, target: Team, user: Any) -> tuple[type[DomainError], str] | None:
    """Why `user` may not move `bot` from `source` (its team) to `target` now, as the error's class
    and message, or None when they may (the limit of bots is counted apart, under the team's lock)."""
    if not source.personal:
        return Conflict, (f"{bot.name} belongs to the team {source.name}: no one member alone may take it away "
                          "(only a bot of a personal team moves)")
    if target.pk == source.pk:
        return Conflict, f"{bot.name} is in the team {target.name} already"
    if not is_member(user=user, team_id=target.pk):
        return Forbidden, "you can move a bot only to a team you are a member of"
    if target.archived is not None:
        return Conflict, f"the team {target.name} is archived; restore it first"
    return None


def move_targets(*, bot: Bot, user: Any) -> list[Team]:
    """The teams `user` may move `bot` to now (empty when they may not move it at all): what the
    bot's page offers, exactly what `move_bot` accepts but for the limit of bots."""
    if not bot.team.personal or not is_member(user=user, team_id=bot.team_id):
        return []
    return [t for t in teams_of(user=user).filter(personal=False, archived__isnull=True)
            if move_refusal(bot=bot, source=bot.team, target=t, user=user) is None]


def move_bot(*, bot: Bot, user: Any, team: Any) -> Bot:
    """`user` moves `bot` from their personal team to `team` (the id of a team they are in). Both
    teams' rows and then the bot's are locked, so the limit of bots per team holds against parallel
    creations and moves, and a leave or a removal at the same moment is seen."""
    try:
        target = get_team(team_id=team)
    except NotFound as exc:  # a field of the body, not the path: bad input
        raise Invalid(f"team: {exc}") from None
    check_owner(bot=bot, user=user)
    with transaction.atomic():
        locked = {t.pk: t for t in Team.objects.select_for_update(no_key=True).filter(pk__in={bot.team_id, target.pk})
                  .order_by("pk")}
        moving = Bot.objects.select_for_update().get(pk=bot.pk)
        if moving.team_id != bot.team_id:
            raise Conflict(f"{moving.name} changed teams meanwhile; reload its page")
        check_owner(bot=moving, user=user)
        source, target = locked[moving.team_id], locked[target.pk]
        refusal = move_refusal(bot=moving, source=source, target=target, user=user)
        if refusal is not None:
            error, message = refusal
            raise error(message)
        bot_moving.send(sender=Bot, bot=moving, source=source, target=target)  # an event's rules may refuse
        if moving.retired is None:
            held = Bot.objects.filter(team=target, game=moving.game, retired__isnull=True).count()
            limit = settings.ARMADA.max_bots_per_game
            if held >= limit:
                raise Conflict(f"the team {target.name} already has {held} {Game(moving.game).label} bots (the limit "
                               f"is {limit} per team); retire or delete one first")
        moving.team = target
        moving.save(update_fields=["team"])
    return moving
