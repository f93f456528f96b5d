"""Keeping storage and ownership right however a row is deleted (service, admin or shell).

- A user about to be deleted: each bot they created is forgotten (retired, code and logs gone),
  unless a shared team that others are still in manages it: it stays with the team.
- A user saved with *active* perhaps changed: their personal team's bots follow (`playing()`).
- A version deleted: its archive and its validation game's replay are removed from storage once the
  deletion is committed.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_delete
from django.dispatch import receiver

from armada_web.bots.models import Bot, BotVersion
from armada_web.bots.services import creator_deleted
from armada_web.bots.signals import active_version_changed


@receiver(pre_delete, sender=settings.AUTH_USER_MODEL)
def forget_bots_of_deleted_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    # every version of theirs locked first, in id order as a match's recording locks its two (a review:
    # bot by bot, a match between two of their bots recorded meanwhile could deadlock with it)
    list(BotVersion.objects.select_for_update().filter(bot__owner=instance).order_by("pk").values_list("pk", flat=True))
    for bot in instance.bots.select_related("team"):
        creator_deleted(bot=bot, user=instance)


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def follow_account_state(sender: Any, instance: Any, created: bool, update_fields: Any = None, raw: bool = False,
                         **kwargs: Any) -> None:
    """Staff ticked or unticked a user's *active* box (a save that may change it): the bots of their
    personal team start or stop playing (`BotVersion.objects.playing()`), so each follows as when
    its playing version changed, at once (a review: the ladder's flag waited for its repair, and a
    banned account's bot was paired for up to ten minutes)."""
    if created or raw or (update_fields is not None and "is_active" not in update_fields):
        return  # (a log-in saves last_login alone; a restore's loaddata is raw)
    with transaction.atomic():
        for bot in Bot.objects.filter(owner=instance, team__personal=True).order_by("pk"):
            active_version_changed.send(sender=Bot, bot=bot)


@receiver(post_delete, sender=BotVersion)
def delete_archive_of_deleted_version(sender: Any, instance: BotVersion, **kwargs: Any) -> None:
    for field in (instance.archive, instance.replay):
        if field.name:
            transaction.on_commit(partial(field.storage.delete, str(field.name)), robust=True)
