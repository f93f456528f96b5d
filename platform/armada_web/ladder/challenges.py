"""Challenges: a signed-in user's unrated match between one of their bots and another bot.

Only games whose spec allows challenges (a league already plays every pairing). The server
picks the seed and alternates sides between challenges of a pair; limits per user per hour and
per pair per hour (settings) are refused with RateLimited. Challenges go to their own queue,
which the match workers serve beside the ranked one, so they never wait behind its backlog.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from armada_web.accounts import limits
from armada_web.bots.access import check_owner
from armada_web.bots.models import Bot, BotVersion
from armada_web.errors import Invalid, NotFound
from armada_web.games import spec
from armada_web.inputs import parse_id
from armada_web.matches.models import Match, MatchKind, Participant
from armada_web.matches.services import create_match

#: The actions the two hourly limits count (accounts.limits): per user, and per pair of bots.
CHALLENGE = "challenge"
CHALLENGE_PAIR = "challenge-pair"


def _bot(value: int, what: str) -> Bot:
    bot_id = parse_id(value, what=f"{what}'s id")
    bot = Bot.objects.select_related("active_version", "owner").filter(pk=bot_id).first()
    if bot is None:
        raise NotFound(f"no bot with id {bot_id}")
    return bot


def _playing(bot: Bot) -> BotVersion:
    version = BotVersion.objects.playing().filter(bot=bot).select_related("bot").first()
    if version is None:
        raise Invalid(f"{bot.name} cannot play now (retired, disabled, or no valid version)")
    return version


def challenge(*, user: Any, bot_id: Any, opponent_id: Any) -> Match:
    """Queue an unrated match of `user`'s bot against bot `opponent_id`."""
    bot = _bot(bot_id, "bot")
    opponent = _bot(opponent_id, "opponent")
    check_owner(bot=bot, user=user)
    if bot.pk == opponent.pk:
        raise Invalid("a bot cannot challenge itself")
    for one in (bot, opponent):
        game = spec(one.game)
        if not game.challenges:
            raise Invalid(f"{one.name} is a {game.label} bot: its games have no challenges "
                          f"(every pairing is played in its {game.table_label.lower()} already)")
    if bot.game != opponent.game:
        raise Invalid(f"{bot.name} and {opponent.name} play different games")
    first, second = _playing(bot), _playing(opponent)
    config = settings.ARMADA
    with transaction.atomic():
        # Counted with the match's rows (accounts.limits): parallel challenges meet the limits too.
        limits.take(action=CHALLENGE, key=limits.user_key(user.pk), limit=config.challenges_per_hour,
                    window_s=3600, refusal=f"challenge limit reached: {config.challenges_per_hour} challenges "
                                           "per hour")
        limits.take(action=CHALLENGE_PAIR, key=limits.pair_key(bot.pk, opponent.pk),
                    limit=config.challenges_per_pair_hour, window_s=3600,
                    refusal=f"challenge limit reached for this pair: {config.challenges_per_pair_hour} per hour")
        # The pair's last challenge through the bot's seats (index seat_pairing_newest).
        last = (Participant.objects.filter(bot=bot, opponent=opponent, match__kind=MatchKind.CHALLENGE)
                .order_by("-match_id").values_list("seat", flat=True).first())
        if last == 1:  # the bot sat first last time: the opponent does now
            first, second = second, first
        return create_match(game=bot.game, first=first, second=second, kind=MatchKind.CHALLENGE,
                            requested_by=user)
