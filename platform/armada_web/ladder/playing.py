"""Which ratings are on the ladder and in matchmaking: `Rating.playing`, kept equal to
`BotVersion.objects.playing()` so the ladder's page and the matchmaker's tick read one indexed
table (`rating_ladder`, `rating_longest_waiting`, `rating_near_mu`) instead of joining versions,
bots and owners for every row.

`follow` runs in the transaction that changed which version of a bot plays (the ladder's
receiver of `bots.signals.active_version_changed`): the playing version of a rated game gets its
Rating row now (at its placement start) and is flagged, the bot's other versions are not.
`repair` re-derives every flag from `playing()` (beat, after `recompute_ratings`, and as a safety
net for a change made some other way, like the league's periodic sync).
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from armada_web.bots.models import Bot, BotVersion
from armada_web.games import rated_games, spec
from armada_web.ladder.models import Rating
from armada_web.ladder.ratings import ensure_rating


def follow(*, bot: Bot) -> None:
    """Flag the rating of `bot`'s playing version (creating it) and unflag its other versions'."""
    if bot.pk is None or not spec(bot.game).rated:  # a deleted bot: its ratings went with it
        return
    version = BotVersion.objects.playing().filter(bot_id=bot.pk).select_related("bot").first()
    others = Rating.objects.filter(version__bot_id=bot.pk, playing=True)
    if version is not None:
        others = others.exclude(version_id=version.pk)
        ensure_rating(version=version)
        Rating.objects.filter(version_id=version.pk, playing=False).update(playing=True)
    others.update(playing=False)


def repair() -> int:
    """Set every rated game's flags from `BotVersion.objects.playing()`; returns the rows changed."""
    changed = 0
    for game in rated_games():
        playing = BotVersion.objects.playing().of_game(game.slug)
        for version in playing.filter(rating__isnull=True).select_related("bot"):
            ensure_rating(version=version)
            changed += 1
        listed = Exists(playing.filter(pk=OuterRef("version_id")))
        changed += Rating.objects.filter(game=game.slug, playing=True).exclude(listed).update(playing=False)
        changed += Rating.objects.filter(game=game.slug, playing=False).filter(listed).update(playing=True)
    return changed
