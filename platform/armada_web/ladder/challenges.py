"""Challenges: a signed-in user's unrated Galaxy match between one of their bots and another.

The server picks the seed and alternates sides between challenges of a pair; limits per user
per hour and per pair per hour (settings) answer 429 with a message. Challenges go to their own
queue, which the match workers serve beside `matches`, so they never wait behind the ranked
backlog.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from armada_web.bots.models import Bot
from armada_web.bots.services import BotError
from armada_web.matches.models import Match, MatchKind
from armada_web.matches.services import create_match


def _bot(value: Any, what: str) -> Bot:
    if isinstance(value, bool) or not str(value).isdigit():
        raise BotError(f"give the {what}'s id as an integer")
    bot = Bot.objects.select_related("active_version", "owner").filter(pk=int(value)).first()
    if bot is None:
        raise BotError(f"no bot with id {value}", status=404)
    return bot


def challenge(user: Any, bot_id: Any, opponent_id: Any) -> Match:
    """Queue an unrated match of `user`'s bot against `opponent_id`; BotError when refused."""
    bot = _bot(bot_id, "bot")
    opponent = _bot(opponent_id, "opponent")
    if bot.owner_id != user.pk:
        raise BotError("not your bot: challenge with one of your own bots", status=403)
    if bot.pk == opponent.pk:
        raise BotError("a bot cannot challenge itself")
    for one in (bot, opponent):
        if one.game != "galaxy":
            raise BotError(f"{one.name} is a Mothership Down bot: challenges are Galaxy matches "
                           "(every Mothership Down pairing is in the league already)")
        if not one.is_active or one.active_version is None:
            raise BotError(f"{one.name} cannot play now (retired, disabled, or no valid version)")
    since = timezone.now() - timedelta(hours=1)
    mine = Match.objects.filter(kind=MatchKind.CHALLENGE, requested_by=user, created__gte=since).count()
    if mine >= settings.ARMADA_CHALLENGES_PER_HOUR:
        raise BotError(f"challenge limit reached: {settings.ARMADA_CHALLENGES_PER_HOUR} challenges per hour; "
                       "try again within the hour", status=429)
    pair = (Match.objects.filter(kind=MatchKind.CHALLENGE, participants__version__bot=bot)
            .filter(participants__version__bot=opponent))
    if pair.filter(created__gte=since).count() >= settings.ARMADA_CHALLENGES_PER_PAIR_HOUR:
        raise BotError(f"challenge limit reached for this pair: {settings.ARMADA_CHALLENGES_PER_PAIR_HOUR} "
                       "per hour; try again within the hour", status=429)
    last = pair.order_by("-created", "-id").first()
    first, second = bot.active_version, opponent.active_version
    assert first is not None and second is not None
    if last is not None:
        seat_1 = last.participants.filter(seat=1).values_list("version__bot_id", flat=True).first()
        if seat_1 == bot.pk:
            first, second = second, first
    return create_match("galaxy", first, second, kind=MatchKind.CHALLENGE, requested_by=user)
