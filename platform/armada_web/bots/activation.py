"""Which version of a bot plays: the newest valid one, unless its owner pinned another."""

from __future__ import annotations

from django.db import transaction

from armada_web.bots.models import Bot, BotVersion, VersionStatus
from armada_web.bots.signals import active_version_changed


def newest_valid(*, bot: Bot) -> BotVersion | None:
    """The bot's valid version of the highest number, or None while it has none."""
    return bot.versions.filter(status=VersionStatus.VALID).order_by("-number").first()


def refresh_active(*, bot: Bot) -> None:
    """After a validation: the newest valid version becomes active unless the owner pinned one.

    Always tells the apps above (`active_version_changed`): even when the active version stays,
    it may have just become valid again (a validation repeated after an engine change).
    """
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        best = newest_valid(bot=locked)
        pinned = locked.pinned and locked.active_version_id is not None
        if not pinned and best is not None and best.pk != locked.active_version_id:
            locked.active_version = best
            locked.save(update_fields=["active_version"])
        active_version_changed.send(sender=Bot, bot=locked)
